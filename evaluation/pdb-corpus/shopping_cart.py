class Cart:
    def __init__(self):
        self.items = {}
        self.coupon = None

    def add(self, name, price, qty=1):
        entry = self.items.get(name)
        if entry:
            entry["qty"] += qty
        else:
            self.items[name] = {"price": price, "qty": qty}

    def apply_coupon(self, code):
        percent = int(code.split("-")[1])
        self.coupon = percent
        return percent

    def total(self):
        amount = sum(e["price"] * e["qty"] for e in self.items.values())
        if self.coupon:
            amount = amount * (100 - self.coupon) / 100
        return round(amount, 2)


def checkout(cart, codes):
    for code in codes:
        cart.apply_coupon(code)
    return cart.total()


def main():
    cart = Cart()
    cart.add("tea", 4.5)
    cart.add("mug", 12.0, 2)
    cart.add("tea", 4.5, 2)
    print("total:", checkout(cart, ["SAVE-10"]))
    print("total:", checkout(cart, ["SAVE-15", "SAVE-TWENTY"]))


main()
