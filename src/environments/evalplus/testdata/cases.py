# The solutions the fixture compares (task id, code as the model wrote it inside its fence); the check
# receives the task's prompt + code unless the code already starts with the prompt, as NeMo Gym sends it.
CASES = [
    ("HumanEval/0", "def has_close_elements(numbers, threshold):\n    return any(abs(a - b) < threshold for a in numbers for b in numbers if a is not b)"),
    ("HumanEval/0", "def has_close_elements(numbers, threshold):\n    return True"),
    ("HumanEval/0", "    return False"),
    ("HumanEval/1", "def separate_paren_groups(s):\n    out, cur, d = [], '', 0\n    for c in s.replace(' ', ''):\n        cur += c\n        d += 1 if c == '(' else -1\n        if d == 0:\n            out.append(cur)\n            cur = ''\n    return out"),
    ("HumanEval/2", "def truncate_number(number):\n    return number - int(number) + 1e-9"),
    ("HumanEval/2", "def truncate_number(number):\n    return round(number % 1.0, 2)"),
    ("HumanEval/2", "def truncate_number(number):\n    return number % 1.0\nopen('x', 'w')"),
    ("HumanEval/3", "import itertools\ndef below_zero(operations):\n    return min(itertools.accumulate(operations)) < 0"),
    ("HumanEval/3", "def below_zero(operations):\n    return (("),
    ("HumanEval/4", "def mean_absolute_deviation(numbers):\n    m = sum(numbers) / len(numbers)\n    return sum(abs(x - m) for x in numbers) / len(numbers)"),
    ("HumanEval/32", "def find_zero(xs):\n    lo, hi = -1000.0, 1000.0\n    for _ in range(200):\n        mid = (lo + hi) / 2\n        if (poly(xs, lo) > 0) == (poly(xs, mid) > 0):\n            lo = mid\n        else:\n            hi = mid\n    return lo"),
    ("HumanEval/900", "def third(x):\n    return x / 3 + 1e-4"),
    ("HumanEval/900", "def third(x):\n    return int(x / 3)"),
    ("HumanEval/900", "def third(x):\n    import sys\n    sys.exit(0)"),
    ("Mbpp/2", "def similar_elements(a, b):\n    assert isinstance(a, tuple)\n    return sorted(set(a) & set(b), reverse=True)"),
    ("Mbpp/2", "def similar_elements(a, b):\n    return [x for x in a if x in b][:1]"),
    ("Mbpp/252", "import cmath\ndef convert(n):\n    assert isinstance(n, complex)\n    return cmath.polar(n)"),
]
