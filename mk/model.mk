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

# The Relacy model of a group's slot claim and reclaim
# (tests/model/relacy_group.cc), alone:
#   make model-group-check MODEL_ARGS='-v claim-F-relaxed'
.PHONY: model-group-check
model-group-check:
	$(TEST_ENV) bash tests/model/t_relacy_group.sh $(MODEL_ARGS)
