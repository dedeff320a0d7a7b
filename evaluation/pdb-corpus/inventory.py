class Inventory:
    def __init__(self, name):
        self.name = name
        self.items = {}

    def add(self, item, qty, price):
        if item in self.items:
            old_qty, old_price = self.items[item]
            qty = old_qty + qty
        self.items[item] = (qty, price)

    def remove(self, item, qty):
        current, price = self.items[item]
        if qty >= current:
            del self.items[item]
            return current
        self.items[item] = (current - qty, price)
        return qty

    def total_value(self):
        total = 0.0
        for qty, price in self.items.values():
            total += qty * price
        return round(total, 2)


def parse_line(line):
    name, qty, price = line.split(",")
    return name.strip(), int(qty), float(price)


def main():
    stock = Inventory("warehouse")
    lines = ["bolt, 100, 0.25", "nut, 250, 0.1", "washer, 80, 0.05", "bolt, 20, 0.25"]
    for line in lines:
        item, qty, price = parse_line(line)
        stock.add(item, qty, price)
    taken = stock.remove("nut", 60)
    gone = stock.remove("washer", 100)
    value = stock.total_value()
    print(f"{stock.name}: {len(stock.items)} items worth {value}")
    return value


if __name__ == "__main__":
    main()
