class LineItem:
    def __init__(self, sku, qty, unit_price):
        self.sku = sku
        self.qty = qty
        self.unit_price = unit_price

    def subtotal(self):
        return self.qty * self.unit_price

    def __repr__(self):
        return f"LineItem({self.sku!r}, {self.qty})"


class Order:
    TAX_RATE = 0.2

    def __init__(self, customer):
        self.customer = customer
        self.items = []

    def add(self, sku, qty, unit_price):
        self.items.append(LineItem(sku, qty, unit_price))

    def discount(self, amount):
        if amount >= 100:
            return amount * 0.1
        if len(self.items) >= 3:
            return 5
        return 0

    def total(self):
        amount = sum(item.subtotal() for item in self.items)
        amount -= self.discount(amount)
        return round(amount * (1 + self.TAX_RATE), 2)


def main():
    order = Order("acme")
    order.add("pen", 10, 1.5)
    order.add("pad", 4, 3.25)
    order.add("ink", 2, 7.0)
    print(f"{order.customer}: {order.items} -> {order.total()}")


main()
