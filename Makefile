# Developer shortcuts. The README's two commands are the only set-up a machine needs.
.PHONY: test fuzz bench bench-full lint

test:
	python -m pytest

fuzz:  ## 10,000 examples per no-crash and extreme-number property, 2,000 random lines, 1,500 mutated configs, 1,500 damaged logs
	LAUNCHPLAN_FUZZ_EXAMPLES=10000 python -m pytest tests/properties/test_no_crash.py \
		tests/properties/test_extremes.py -q
	python benchmarks/fuzz_lines.py --lines 2000
	python benchmarks/fuzz_configs.py --runs 1500
	python benchmarks/fuzz_logs.py --runs 1500

bench:  ## every speed goal as a same-run ratio, check over 100,000 points (a few minutes)
	python benchmarks/run.py

bench-full:  ## the same with check over the full 1,000,000 points
	python benchmarks/run.py --check-points 1000000

lint:
	ruff check src tests benchmarks
