WORDS = ["listen", "silent", "enlist", "google", "gooegl", "cat", "act", "tac", "dog"]


def signature(word):
    return "".join(sorted(word.lower()))


def group_anagrams(words):
    groups = {}
    for word in words:
        key = signature(word)
        if key not in groups:
            groups[key] = []
        groups[key].append(word)
    return groups


def largest_groups(groups, min_size):
    big = [sorted(g) for g in groups.values() if len(g) >= min_size]
    big.sort(key=lambda g: (-len(g), g[0]))
    return big


def main():
    groups = group_anagrams(WORDS)
    result = largest_groups(groups, 2)
    for group in result:
        print(", ".join(group))
    print(len(groups), "groups")


main()
