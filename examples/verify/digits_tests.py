assert digit_sum(123) == 6
assert digit_sum(7) == 7
assert digit_sum(1000) == 1
assert digit_sum(-5) == 0
assert digit_sum(int('12')) == 3
