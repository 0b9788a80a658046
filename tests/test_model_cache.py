"""The cache of generated model files (``humanoid_env.robots.cache``: the G1's MJCF, every robot's
scenes): a damaged cached file is rebuilt with a warning naming it, files are written atomically
with no temporary file left on failure, and a cache folder that cannot be written gives an error
naming it and ``HUMANOID_WBC_CACHE``."""

from __future__ import annotations

import errno
import os

import mujoco
import pytest

from humanoid_env.robots import g1_model, robot_description
from humanoid_env.robots.cache import ModelCacheError, ModelCacheWarning
from humanoid_env.robots.g1_model import G1ModelUnavailable, g1_mjcf_path
from humanoid_env.robots.scenes import derived_scene


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache folder (``HUMANOID_WBC_CACHE``); skipped without example-robot-data."""
    try:
        g1_model.g1_urdf_path()
    except G1ModelUnavailable as err:
        pytest.skip(str(err))
    folder = tmp_path / "cache"
    monkeypatch.setenv("HUMANOID_WBC_CACHE", str(folder))
    return folder


def build_robot() -> os.PathLike:
    """The G1 robot file without visual meshes (the quick one to build: ~20 ms)."""
    return g1_mjcf_path(visual_meshes=False)


def build_scene() -> os.PathLike:
    """The G1's flat scene (built from the robot file with meshes)."""
    return derived_scene(robot_description("g1"), "flat")


DAMAGES = [
    (lambda text: text[: len(text) // 2], "does not match its stamp"),  # cut short (a full disk, a kill)
    (lambda text: text.replace('mass="3.814"', 'mass="38.14"').replace('name="home"', 'name="hom"'), "does not match its stamp"),
    (lambda text: "garbage\n", "no content stamp"),
    (lambda text: text.split("\n", 1)[1], "no content stamp"),  # a file of the versions before the stamp
]


@pytest.mark.parametrize("build, models", [(build_robot, 29), (build_scene, 29)], ids=["robot", "scene"])
@pytest.mark.parametrize("damage, reason", DAMAGES, ids=["cut", "changed", "garbage", "unstamped"])
def test_a_damaged_cached_file_is_rebuilt_with_a_warning_naming_it(cache, build, models, damage, reason):
    path = build()
    good = path.read_text()
    path.write_text(damage(good))
    with pytest.warns(ModelCacheWarning, match=f"rebuilding the cached model file {path}: .*{reason}"):
        assert build() == path
    assert path.read_text() == good
    assert mujoco.MjModel.from_xml_path(str(path)).nu == models


def test_an_undecodable_cached_file_is_rebuilt(cache):
    path = build_robot()
    path.write_bytes(b"\xff\xfe\x00 not text")
    with pytest.warns(ModelCacheWarning, match="cannot read it"):
        build_robot()
    assert mujoco.MjModel.from_xml_path(str(path)).nu == 29


def test_a_sound_cached_file_is_read_as_it_is(cache, recwarn):
    path = build_scene()
    stamp = path.stat().st_mtime_ns
    assert build_scene() == path and path.stat().st_mtime_ns == stamp
    assert not [w for w in recwarn if issubclass(w.category, ModelCacheWarning)]


def test_an_unwritable_cache_folder_names_it_and_the_variable(tmp_path, cache, monkeypatch):
    (tmp_path / "a_file").write_text("")
    folder = tmp_path / "a_file" / "cache"
    monkeypatch.setenv("HUMANOID_WBC_CACHE", str(folder))
    with pytest.raises(ModelCacheError, match=f"cannot write the model cache in {folder} .*HUMANOID_WBC_CACHE"):
        build_robot()


def test_a_full_disk_leaves_no_temporary_file_and_names_the_folder(cache, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(ModelCacheError, match=f"{cache} .*No space left on device.*HUMANOID_WBC_CACHE") as caught:
        build_robot()
    assert caught.value.errno == errno.ENOSPC
    assert list(cache.iterdir()) == []  # neither the file nor its temporary
