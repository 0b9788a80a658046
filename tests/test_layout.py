"""QPLayout: where each variable lives in ``x = [qdd, sdd_1..sdd_m, f_1..f_k]``."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from wbc_layer import QPLayout

CASES = [
    # (nv, contacts, environment bodies)
    (29, (("left_foot", 6), ("right_foot", 6)), ()),  # standing: 41 variables (docs/qp.md)
    (29, (("left_foot", 6), ("right_foot", 6), ("right_hand", 3)), ()),  # the wall
    (29, (("left_foot", 6), ("right_foot", 6)), (("seesaw", 1),)),  # the seesaw's tilt
    (18, (("a", 3), ("b", 6), ("c", 3)), (("board", 1), ("cart", 2))),
    (7, (), ()),  # no contact at all
]


def _indices(s: slice) -> list[int]:
    return list(range(s.start, s.stop))


@pytest.mark.parametrize("nv, contacts, bodies", CASES)
def test_slices_partition_the_decision_vector_in_order(nv, contacts, bodies):
    layout = QPLayout(nv, contacts, bodies)
    nb, nf = sum(d for _, d in bodies), sum(d for _, d in contacts)
    assert (layout.nb, layout.nf, layout.nx) == (nb, nf, nv + nb + nf)
    blocks = [layout.qdd] + [layout.body(name) for name, _ in bodies] + [layout.force(name) for name, _ in contacts]
    sizes = [nv] + [d for _, d in bodies] + [d for _, d in contacts]
    assert [b.stop - b.start for b in blocks] == sizes
    # consecutive, no gap or overlap, covering 0..nx-1 exactly once
    assert sum((_indices(b) for b in blocks), []) == list(range(layout.nx))
    assert _indices(layout.accelerations) == list(range(nv + nb))
    assert _indices(layout.forces) == list(range(nv + nb, layout.nx))


@pytest.mark.parametrize("nv, contacts, bodies", CASES)
def test_each_slice_reads_its_own_variables(nv, contacts, bodies):
    # Fill x with labels and read each block back through the layout.
    layout = QPLayout(nv, contacts, bodies)
    x = np.empty(layout.nx)
    labels = {"qdd": 0.0, **{name: float(k + 1) for k, (name, _) in enumerate(bodies + contacts)}}
    x[layout.qdd] = labels["qdd"]
    for name, _ in bodies:
        x[layout.body(name)] = labels[name]
    for name, _ in contacts:
        x[layout.force(name)] = labels[name]
    force_block = x[layout.forces]
    for name, dim in contacts:
        np.testing.assert_array_equal(x[layout.force(name)], np.full(dim, labels[name]))
        # force_in_block: the same variables, indexed within the force block x[forces]
        np.testing.assert_array_equal(force_block[layout.force_in_block(name)], np.full(dim, labels[name]))
    for name, dim in bodies:
        np.testing.assert_array_equal(x[layout.accelerations][layout.body(name)], np.full(dim, labels[name]))


def test_layout_is_immutable_and_compares_by_content():
    layout = QPLayout(29, (("left_foot", 6),))
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.nv = 30
    assert layout == QPLayout(29, (("left_foot", 6),))
    assert layout != QPLayout(29, (("right_foot", 6),))


def test_unknown_name_has_no_slice():
    layout = QPLayout(29, (("left_foot", 6),), (("seesaw", 1),))
    with pytest.raises(KeyError):
        layout.force("seesaw")  # a body is not a contact
    with pytest.raises(KeyError):
        layout.body("left_foot")


def test_controller_layout_matches_its_problem(controller):
    # The standing controller's QP has the layout's size, and its floating-base rows act on the
    # force block exactly where the layout says the forces are (-J_c^T, base columns).
    layout = controller.layout
    assert layout.nx == 41
    controller.compute(controller.robot.q, controller.robot.v)
    problem = controller.last_problem
    assert problem.P.shape == (layout.nx, layout.nx)
    for name, contact in controller.contacts.items():
        J = contact.jacobian(controller.robot)
        np.testing.assert_allclose(problem.A[:6, layout.force(name)], -J[:, :6].T, rtol=0.0, atol=1e-12)
