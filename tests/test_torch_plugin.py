"""Our solvers inside torch.compile: called by the partitioner, and the compiled model stays exact."""

import math

import pytest
import torch
from torch._functorch import config as functorch_config
from torch._functorch import partitioners

from knapcheck.fuzz.harvest.models import build
from knapcheck.solvers.registry import get
from knapcheck.solvers.torch_plugin import use_solver

BACKEND = "aot_eager_decomp_partition"


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def outputs_and_gradients(module, x):
    out = module(x)
    out.square().sum().backward()
    grads = [x.grad] + [p.grad for p in module.parameters()]
    return [out.detach()] + [g.clone() for g in grads]


def compiled_and_eager(model: str, solver: str, memory_budget: float):
    """The partitioner's calls to ``solver`` while ``model`` compiles under the budget, and the
    output and gradients compiled, then eager."""
    module, (x,) = build(model)
    x.requires_grad_(True)
    compiled = torch.compile(module, backend=BACKEND)
    with use_solver(solver, memory_budget=memory_budget) as calls:
        got = outputs_and_gradients(compiled, x)
    x.grad = None
    module.zero_grad(set_to_none=True)
    return calls, got, outputs_and_gradients(module, x)


def test_compiled_under_a_budget_with_full_table_matches_eager():
    calls, got, want = compiled_and_eager("mlp", "full_table", 0.1)
    assert calls, "the partitioner never called full_table"
    assert all(call.max_memory == 0.1 for call in calls)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)


def assert_close_normwise(got: torch.Tensor, want: torch.Tensor) -> None:
    """Within 1e-4 of ``want``'s norm. Eight blocks of float32 sums, ordered differently by the
    decompositions and recomputation, differ elementwise by more than assert_close's float32
    default allows; a wrongly partitioned graph would be off by about the norm itself."""
    assert got.shape == want.shape
    assert torch.linalg.vector_norm(got - want) <= 1e-4 * torch.linalg.vector_norm(want)


def real_memory(call, saved) -> float:
    """The memory of what the solver saves, in the partitioner's own accounting (fractions of its activations)."""
    return math.fsum(call.memory[i] for i in saved)


def test_budget_safe_keeps_the_partitioner_s_budget_where_its_default_solver_exceeds_it():
    calls, got, want = compiled_and_eager("moe", "budget_safe", 0.05)
    assert calls, "the partitioner never called budget_safe"
    default = get("torch:dp_knapsack")
    over = []
    for call in calls:
        assert real_memory(call, call.saved) <= call.max_memory
        _, saved_by_default, _ = default(call.memory, call.runtimes, call.max_memory)
        over.append(real_memory(call, saved_by_default) > call.max_memory)
    assert any(over), "torch's default solver should exceed the budget on this model"
    for g, w in zip(got, want, strict=True):
        assert_close_normwise(g, w)


def test_a_callable_is_called_with_what_the_partitioner_recorded():
    seen = []
    full_table = get("full_table")

    def solver(memory, runtimes, max_memory):
        seen.append((tuple(memory), tuple(runtimes), max_memory))
        return full_table(memory, runtimes, max_memory)

    module, inputs = build("mlp")
    with use_solver(solver, memory_budget=0.2) as calls:
        torch.compile(module, backend=BACKEND)(*inputs)
    assert seen and seen == [(c.memory, c.runtimes, c.max_memory) for c in calls]
    assert [c.saved for c in calls] == [tuple(full_table(*problem)[1]) for problem in seen]


def test_the_swap_is_undone_even_when_the_block_raises():
    before = (
        partitioners.dp_knapsack,
        functorch_config.activation_memory_budget_solver,
        functorch_config.activation_memory_budget,
    )
    with pytest.raises(RuntimeError, match="inside"):
        with use_solver("full_table", memory_budget=0.3):
            assert partitioners.dp_knapsack is not before[0]
            raise RuntimeError("inside")
    after = (
        partitioners.dp_knapsack,
        functorch_config.activation_memory_budget_solver,
        functorch_config.activation_memory_budget,
    )
    assert after == before


def test_an_unknown_solver_is_refused_before_anything_is_swapped():
    with pytest.raises(ValueError, match="no_such_solver"):
        with use_solver("no_such_solver"):
            pass
    with pytest.raises(ValueError, match="callable"):
        with use_solver(42):
            pass
    with pytest.raises(ValueError, match="memory_budget"):
        with use_solver("full_table", memory_budget=float("nan")):
            pass
    assert partitioners.dp_knapsack.__module__ == "torch._functorch._activation_checkpointing.knapsack"
