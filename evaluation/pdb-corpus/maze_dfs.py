MAZE = [
    "S.#.",
    ".##.",
    "...#",
    "#.E.",
]


def neighbors(pos, grid):
    r, c = pos
    for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < len(grid) and 0 <= nc < len(grid[0]) and grid[nr][nc] != "#":
            yield nr, nc


def solve(grid, pos, goal, seen):
    if pos == goal:
        return [pos]
    seen.add(pos)
    for nxt in neighbors(pos, grid):
        if nxt in seen:
            continue
        rest = solve(grid, nxt, goal, seen)
        if rest:
            return [pos] + rest
    return None


def find(grid, ch):
    for r, row in enumerate(grid):
        if ch in row:
            return r, row.index(ch)


def main():
    start, goal = find(MAZE, "S"), find(MAZE, "E")
    path = solve(MAZE, start, goal, set())
    print(len(path) - 1, "moves:", path)


main()
