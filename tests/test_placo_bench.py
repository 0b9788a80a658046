"""The pure logic of ``benchmarks.placo_g1`` that needs neither PlaCo nor TSID: the workers'
framing and command loop, the URDF the peers read (our sites as fixed frames), the joint-order map, the problem's
settings, the peers' descriptions and the state recorder. The benchmark itself (PlaCo in
``.venv-placo``, TSID in ``.venv-tsid``) is not a test.
"""

from __future__ import annotations

import io
import math
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from benchmarks import placo_g1
from benchmarks.worker_protocol import MAX_HEADER_BYTES, ProtocolError, encode, read_message, write_message
from humanoid_env.robots.g1_model import g1_mjcf_path, g1_urdf_path
from wbc_layer import RobotModel

#: [m] our sites against the same frames in pinocchio's model of the derived URDF: the MJCF keeps
#: 6 significant digits of each transform along a dozen links (tests/test_g1_model.py: 5e-8 m).
POSITION_TOL = 1e-6
#: [-] rotation entries, quaternions rounded to 6 significant digits.
ROTATION_TOL = 1e-5


@pytest.fixture(scope="module")
def robot() -> RobotModel:
    return RobotModel.from_mjcf(g1_mjcf_path())


# -- framing --------------------------------------------------------------------------------


def test_messages_round_trip_arrays_bit_for_bit_and_fields_as_json():
    rng = np.random.default_rng(0)
    message = {
        "cmd": "time",
        "frames": ["left_sole", "torso"],
        "nested": {"gain": 30.0, "flags": [True, None]},
        "q": rng.normal(size=(7, 36)),
        "success": np.array([True, False]),
        "index": np.arange(5, dtype=np.int32),
        "empty": np.zeros((0, 3)),
        "fortran": np.asfortranarray(rng.normal(size=(3, 4))),
    }
    back = read_message(io.BytesIO(encode(message)))
    assert back.keys() == message.keys()
    for name, value in message.items():
        if isinstance(value, np.ndarray):
            assert back[name].dtype == value.dtype and back[name].shape == value.shape
            assert np.array_equal(back[name], value)
        else:
            assert back[name] == value


def test_messages_follow_each_other_and_a_clean_end_reads_none():
    stream = io.BytesIO()
    write_message(stream, {"cmd": "setup", "x": np.ones(2)})
    write_message(stream, {"cmd": "quit"})
    stream.seek(0)
    assert read_message(stream)["cmd"] == "setup"
    assert read_message(stream) == {"cmd": "quit"}
    assert read_message(stream) is None


@pytest.mark.parametrize("cut", [2, 6, -3])
def test_a_stream_cut_inside_a_message_is_an_error(cut):
    data = encode({"cmd": "solve", "q": np.ones(36)})
    with pytest.raises(ProtocolError, match="stream ended inside"):
        read_message(io.BytesIO(data[:cut]))


def test_text_on_the_pipe_is_caught_as_out_of_step():
    with pytest.raises(ProtocolError, match="out of step"):
        read_message(io.BytesIO(b"Loading robot...\n" + encode({"cmd": "quit"})))
    assert MAX_HEADER_BYTES < int.from_bytes(b"Load", "big")


def test_object_arrays_do_not_travel():
    with pytest.raises(ProtocolError, match="Python objects"):
        encode({"x": np.array([{"a": 1}], dtype=object)})


# -- the robot PlaCo reads ------------------------------------------------------------------


def test_derived_urdf_puts_our_sites_at_the_same_placements(robot):
    """Pinocchio's own URDF parser on the derived text: the added frames sit where our sites do
    (the same check the benchmark runs on PlaCo's model, there with M, h and the CoM too)."""
    text = placo_g1.derived_urdf(g1_urdf_path(), placo_g1.site_frames(robot))
    root = ET.fromstring(text)
    assert root.find(".//visual") is None and root.find(".//collision") is None
    reference = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    assert tuple(reference.names[2:]) == robot.joint_names  # the same joint order
    data = reference.createData()
    q = pin.randomConfiguration(robot.model)
    q[:3] = [0.1, -0.2, 0.7]
    robot.update(q, np.zeros(robot.nv))
    pin.framesForwardKinematics(reference, data, q)
    for site in placo_g1.SITES:
        placement = data.oMf[reference.getFrameId(site)]
        ours = robot.frame_placement(site)
        assert np.allclose(placement.translation, ours.translation, rtol=0, atol=POSITION_TOL), site
        assert np.allclose(placement.rotation, ours.rotation, rtol=0, atol=ROTATION_TOL), site
    assert pin.computeTotalMass(reference) == pytest.approx(robot.mass, abs=1e-5)


def test_a_frame_on_a_missing_link_or_with_a_taken_name_is_refused(robot):
    sole = placo_g1.site_frames(robot, ("left_sole",))["left_sole"][1]
    with pytest.raises(ValueError, match="no link 'nowhere'"):
        placo_g1.derived_urdf(g1_urdf_path(), {"x": ("nowhere", sole)})
    with pytest.raises(ValueError, match="link of that name"):
        placo_g1.derived_urdf(g1_urdf_path(), {"pelvis": ("torso_link", sole)})


def test_joint_order_maps_states_and_torques_both_ways():
    ours = ("a", "b", "c")
    order = placo_g1.JointOrder(ours, ["c", "a", "b"])
    assert not order.identical
    q = np.arange(10.0)  # 7 base entries, then a b c
    assert order.q(q)[7:].tolist() == [9.0, 7.0, 8.0]
    v = np.arange(9.0)
    assert np.array_equal(order.v_back(order.v(v)), v)
    M = np.arange(81.0).reshape(9, 9)
    assert order.matrix(M)[6, 7] == M[8, 6] and order.matrix(M)[:6, :6].tolist() == M[:6, :6].tolist()
    with pytest.raises(ValueError, match="different joints"):
        placo_g1.JointOrder(ours, ["a", "b", "d"])


def test_peer_problem_poses_our_contacts_and_gains(robot):
    config = placo_g1.g1_controller_config()
    problem = placo_g1.peer_problem(config, robot, np.array([0.0, 0.0, 0.6]))
    left = problem["contacts"][0]
    foot = config.contacts[0]
    assert left["frame"] == "left_sole" and left["length"] == 2 * foot.half_length
    assert left["mu"] == pytest.approx(0.7 * math.cos(math.pi / 4))  # our inscribed 4-facet pyramid
    assert left["kd"] == config.contact_damping and left["weight_forces"] == config.force_regularisation
    assert (left["min_force"], left["max_force"]) == (foot.min_normal_force, foot.max_normal_force)  # TSID's rows
    assert problem["com"] == {"target": [0.0, 0.0, 0.6], "kp": 30.0, "kd": 11.0, "weight": 1000.0}
    assert list(problem["posture"]["targets"]) == list(robot.joint_names)
    assert problem["torque_cost"] == 0.0 and problem["torque_limits"]
    with pytest.raises(ValueError, match="4-facet"):
        placo_g1.peer_problem(config.with_overrides(friction_facets=6), robot, np.zeros(3))


def test_each_peer_names_its_four_timed_parts_and_tsid_runs_on_one_openmp_thread():
    assert set(placo_g1.PEERS) == {"placo", "tsid"}
    for peer in placo_g1.PEERS.values():
        assert len(peer.parts) == 4 and (placo_g1.HERE / peer.script).is_file()
        assert peer.mismatches and peer.venv_target.startswith("make ")
    # libtsid links OpenMP: without one thread its tick swings between 0.1 and 12 ms
    assert dict(placo_g1.TSID.environment) == {"OMP_NUM_THREADS": "1"}


def test_a_missing_peer_interpreter_names_the_make_target_and_none_leaves_a_peer_out(tmp_path):
    with pytest.raises(FileNotFoundError, match="make tsid-venv"):
        placo_g1.Worker(placo_g1.TSID, tmp_path / "no-python")
    assert placo_g1.optional_python("none") is None and placo_g1.optional_python("NONE") is None
    assert placo_g1.optional_python("x/bin/python") == placo_g1.Path("x/bin/python")
    with pytest.raises(SystemExit):  # no peer at all is refused before any recording
        placo_g1.main(["--placo-python", "none"])


#: A peer worker with no library behind it: ``worker_protocol.serve`` around a toy worker that
#: prints on stdout (as libraries do) and answers ``solve`` with ``2 q`` and ``time`` with an error.
_TOY_WORKER = """
import sys
sys.path.insert(0, {benchmarks!r})
import numpy as np
from worker_protocol import serve

class Toy:
    def __init__(self, message):
        print("a library talking on stdout")
        self.scale = float(message["scale"])
    def describe(self):
        return {{"toy": True}}
    def solve(self, q, v, extra_force):
        return {{"tau": self.scale * q}}
    def time(self, q, v, extra_force):
        raise ValueError("no clock in the toy")

serve(Toy)
"""


def test_the_workers_loop_answers_each_command_and_survives_errors_and_prints(tmp_path):
    script = tmp_path / "toy_worker.py"
    script.write_text(_TOY_WORKER.format(benchmarks=str(placo_g1.HERE)))
    toy = placo_g1.Peer(
        name="toy", label="toy", script=str(script), venv_target="make toy", parts=(), tick="", mismatches=()
    )
    worker = placo_g1.Worker(toy, Path(sys.executable))
    try:
        with pytest.raises(RuntimeError, match="'solve' before 'setup'"):
            worker.request("solve", q=np.zeros(2), v=np.zeros(2), extra_force=np.zeros(2))
        assert worker.request("setup", scale=2.0) == {"toy": True}  # its print did not break the framing
        q = np.array([0.1, -3.0, np.pi])
        np.testing.assert_array_equal(worker.request("solve", q=q, v=q, extra_force=q)["tau"], 2.0 * q)
        with pytest.raises(RuntimeError, match="no clock in the toy"):  # the traceback comes back
            worker.request("time", q=q, v=q, extra_force=q)
        with pytest.raises(RuntimeError, match="unknown command 'dance'; valid: setup, model, solve, time, quit"):
            worker.request("dance")
        np.testing.assert_array_equal(worker.request("solve", q=q, v=q, extra_force=q)["tau"], 2.0 * q)
    finally:
        worker.close()
    assert worker.process.returncode == 0  # ``quit`` ends the loop cleanly


# -- the recorded states --------------------------------------------------------------------


def test_recorder_starts_at_home_at_rest_and_keeps_unit_quaternions():
    Q, V, info = placo_g1.record_states(5)
    assert Q.shape == (5, 36) and V.shape == (5, 35)
    assert np.allclose(np.linalg.norm(Q[:, 3:7], axis=1), 1.0)
    assert np.array_equal(V[0], np.zeros(35)) and Q[0, 6] == 1.0  # upright: quaternion xyzw = (0, 0, 0, 1)
    assert info["relaxed_ticks"] == 0 and info["max_com_error_m"] < 1e-3


def test_pushes_turn_by_a_quarter_each_second():
    assert placo_g1.push_force(0.2).tolist() == [0.0, 0.0]
    assert placo_g1.push_force(0.55) == pytest.approx([40.0, 0.0])
    assert placo_g1.push_force(1.55) == pytest.approx([0.0, 40.0])
    assert placo_g1.push_force(2.65).tolist() == [0.0, 0.0]
