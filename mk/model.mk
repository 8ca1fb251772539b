# SPDX-License-Identifier: MIT
# The Relacy model of the ring (tests/model/, see its README.md).
# tests/model/t_relacy.sh builds and runs it in make check; this target
# runs it alone, with Relacy's options passed in MODEL_ARGS, e.g.
#   make model-check MODEL_ARGS='-v full-no-A'
#   make model-check MODEL_ARGS='-s random -i 1000000'

MODEL_ARGS ?=

.PHONY: model-check
model-check:
	$(TEST_ENV) bash tests/model/t_relacy.sh $(MODEL_ARGS)

# The Relacy model of a group's own code (src/writers/group.c through
# tests/model/model_group.c and relacy_group.cc), alone:
#   make model-group-check MODEL_ARGS='-v free-relaxed'
.PHONY: model-group-check
model-group-check:
	$(TEST_ENV) bash tests/model/t_relacy_group.sh $(MODEL_ARGS)

# The barrier mutants (tools/mutate.py, docs/testing.md), all of them, with
# the table in $(BUILD)/mutation.md (make check-long runs the same):
#   make mutation-check
#   make mutation-check MUTATE_ARGS='--only src/writers/group.c:J'
MUTATE_ARGS ?= --keep-going --results $(abspath $(BUILD))/mutation.md
.PHONY: mutation-check
mutation-check:
	$(TEST_ENV) python3 tools/mutate.py run $(MUTATE_ARGS)
