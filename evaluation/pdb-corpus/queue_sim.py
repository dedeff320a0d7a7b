ARRIVALS = [(0, "amy", 3), (1, "bo", 2), (2, "cy", 4), (6, "di", 1), (7, "ed", 2)]


def simulate(arrivals):
    waiting = []
    clock = 0
    served = []
    pending = list(arrivals)
    while pending or waiting:
        while pending and pending[0][0] <= clock:
            waiting.append(pending.pop(0))
        if not waiting:
            clock = pending[0][0]
            continue
        arrived, name, duration = waiting.pop(0)
        wait = clock - arrived
        clock += duration
        served.append((name, wait))
    return served


def report(served):
    total_wait = sum(wait for _, wait in served)
    longest = max(served, key=lambda s: s[1])
    return total_wait / len(served), longest


def main():
    served = simulate(ARRIVALS)
    avg, longest = report(served)
    print(f"average wait {avg:.2f}, longest {longest}")


main()
