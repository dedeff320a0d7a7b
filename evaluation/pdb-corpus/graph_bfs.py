ROADS = {
    "home": ["park", "shop"],
    "park": ["home", "lake", "school"],
    "shop": ["home", "school"],
    "school": ["park", "shop", "office"],
    "lake": ["park"],
    "office": ["school"],
}


def shortest_path(graph, start, goal):
    parents = {start: None}
    queue = [start]
    while queue:
        place = queue.pop(0)
        if place == goal:
            break
        for nxt in graph[place]:
            if nxt not in parents:
                parents[nxt] = place
                queue.append(nxt)
    if goal not in parents:
        return None
    return build_path(parents, goal)


def build_path(parents, goal):
    path = []
    node = goal
    while node is not None:
        path.append(node)
        node = parents[node]
    path.reverse()
    return path


def main():
    route = shortest_path(ROADS, "home", "office")
    print(" -> ".join(route))
    print(shortest_path(ROADS, "lake", "shop"))


if __name__ == "__main__":
    main()
