class InsufficientFunds(Exception):
    def __init__(self, needed, available):
        super().__init__(f"needed {needed}, only {available} available")
        self.needed = needed
        self.available = available


class Account:
    def __init__(self, owner, balance=0):
        self.owner = owner
        self.balance = balance

    def deposit(self, amount):
        self.balance += amount
        return self.balance

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(amount, self.balance)
        self.balance -= amount
        return self.balance


def transfer(source, target, amount):
    source.withdraw(amount)
    target.deposit(amount)


def main():
    alice = Account("alice", 100)
    bob = Account("bob", 20)
    failed = []
    for amount in [30, 50, 40]:
        try:
            transfer(alice, bob, amount)
        except InsufficientFunds as err:
            failed.append((amount, err.available))
    print(alice.balance, bob.balance, failed)


main()
