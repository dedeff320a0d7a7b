class BookUnavailable(Exception):
    pass


class Book:
    def __init__(self, title, copies):
        self.title = title
        self.copies = copies
        self.borrowers = []

    def __repr__(self):
        return f"Book({self.title!r}, {self.copies - len(self.borrowers)} left)"


class Library:
    def __init__(self, books):
        self.books = {b.title.lower(): b for b in books}

    def checkout(self, title, member):
        book = self.books[title.lower()]
        if len(book.borrowers) >= book.copies:
            raise BookUnavailable(f"{book.title} is out")
        book.borrowers.append(member)
        return book

    def give_back(self, title, member):
        book = self.books[title.lower()]
        book.borrowers.remove(member)


def main():
    lib = Library([Book("Dune", 1), Book("Emma", 2)])
    requests = [("dune", "ann"), ("Emma", "raj"), ("DUNE", "lee"), ("emma", "ann")]
    waitlist = []
    for title, member in requests:
        try:
            lib.checkout(title, member)
        except BookUnavailable as exc:
            waitlist.append((member, str(exc)))
    lib.give_back("Dune", "ann")
    print(lib.books, waitlist)


main()
