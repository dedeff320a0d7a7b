def merge(left, right):
    result = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            result.append(left[i])
            i += 1
        else:
            result.append(right[j])
            j += 1
    result.extend(left[i:])
    result.extend(right[j:])
    return result


def merge_sort(items):
    if len(items) <= 1:
        return items
    mid = len(items) // 2
    left = merge_sort(items[:mid])
    right = merge_sort(items[mid:])
    return merge(left, right)


def main():
    data = [38, 27, 43, 3, 9, 82, 10]
    ordered = merge_sort(data)
    print("sorted:", ordered)
    assert ordered == sorted(data)


if __name__ == "__main__":
    main()
