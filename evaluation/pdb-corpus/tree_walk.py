class Node:
    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None

    def __repr__(self):
        return f"Node({self.key})"


def insert(root, key):
    if root is None:
        return Node(key)
    if key < root.key:
        root.left = insert(root.left, key)
    else:
        root.right = insert(root.right, key)
    return root


def in_order(node, out):
    if node is None:
        return out
    in_order(node.left, out)
    out.append(node.key)
    in_order(node.right, out)
    return out


def height(node):
    if node is None:
        return 0
    return 1 + max(height(node.left), height(node.right))


def main():
    root = None
    for key in [50, 30, 70, 20, 40, 60]:
        root = insert(root, key)
    keys = in_order(root, [])
    depth = height(root)
    print(keys, depth)


main()
