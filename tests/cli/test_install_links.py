"""``install``, ``install --plugin`` and their ``uninstall``s never read, create, write or remove through a link.

The paths come from what an install really leaves in a repository (walked after one run, plus the ``.bak`` copies
a re-run makes), so a file a later version installs is covered without a change here. For each one a link to a
file or folder outside the repository is planted in its place (as a teammate's commit would), and the command
must stop with a message naming it, change nothing in the repository and nothing the link points to.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile

import pytest

from team_memory.cli import install
from team_memory.cli.main import main


def _tree(root: str) -> dict:
    """Every path under ``root`` (no ``.git``) -> ``"dir"``, a link's target or a file's bytes, links not followed."""
    out = {}

    def walk(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_symlink():
                    out[rel] = ("link", os.readlink(entry.path))
                elif entry.is_dir():
                    if entry.name != ".git":
                        out[rel] = "dir"
                        walk(entry.path, rel + "/")
                else:
                    with open(entry.path, "rb") as f:
                        out[rel] = f.read()
    walk(root, "")
    return out


def _new_repo(parent: str) -> str:
    repo = os.path.join(parent, "app")
    os.makedirs(os.path.join(repo, ".git"))
    os.makedirs(os.path.join(repo, ".claude"))
    with open(os.path.join(repo, ".claude", "settings.json"), "w") as f:
        json.dump({"env": {"FOO": "1"}}, f)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("node_modules/\n")
    return repo


def _installed_paths() -> list:
    """What a drop-in install writes: every path it leaves, and the backups a changed re-run writes."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = _new_repo(tmp)
        install.install_project(repo)
        tree = _tree(repo)
    backups = [rel + ".bak" for rel, kind in tree.items()
               if rel.startswith((".claude/commands/", ".claude/skills/")) and kind != "dir"]
    paths = sorted(set(tree) | set(backups) | {".claude/settings.json.bak"})
    assert ".gitignore" in paths and ".claude/commands" in paths and ".claude/team-memory/hooks.json" in paths
    return [(rel, tree.get(rel) == "dir") for rel in paths if rel not in (".claude", ".claude/memory")]


INSTALLED = _installed_paths()
PLUGIN_PATHS = [(".gitignore", False), (".claude/settings.json", False), (".claude/settings.json.bak", False)]


def _plant(repo: str, rel: str, is_dir: bool, outside: str) -> str:
    """Put a link to ``outside``'s file or folder where ``rel`` is (removing what is there); returns the target."""
    target = os.path.join(outside, "folder" if is_dir else "secret.txt")
    path = os.path.join(repo, *rel.split("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.isdir(path) and not os.path.islink(path):
        import shutil
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)
    return target


@pytest.fixture(scope="module")
def _outside(tmp_path_factory):
    out = tmp_path_factory.mktemp("outside") / "home"
    (out / "folder").mkdir(parents=True)
    (out / "folder" / "mine.md").write_text("the user's own\n")
    (out / "secret.txt").write_text('{"auths": {"registry": "credential"}}\n')
    return str(out)


@pytest.fixture
def outside(_outside, monkeypatch):
    """A file and a folder outside the repository, the kind a link points to (``~/.bashrc``, ``~/.claude/commands``),
    in the home folder the commands see.

    Built once for the module's tests: each compares it before and after its own command, so a write through a link
    (or into the home folder) fails the test that made it."""
    monkeypatch.setenv("HOME", _outside)
    monkeypatch.setenv("XDG_STATE_HOME", os.path.join(_outside, ".local", "state"))
    return _outside


def _refused(argv, repo, rel, outside, capsys, repo_before=None) -> None:
    """``argv`` fails naming ``rel``; nothing changes in ``repo`` (its tree now, or ``repo_before`` when the caller
    knows it) or in ``outside``."""
    repo_before, outside_before = repo_before if repo_before is not None else _tree(repo), _tree(outside)
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert rel in err and "symbolic link" in err and "git rm" in err, err
    assert _tree(repo) == repo_before, "something changed in the repository"
    assert _tree(outside) == outside_before, "something was written through the link"


@pytest.mark.parametrize("rel,is_dir", INSTALLED, ids=[rel for rel, _ in INSTALLED])
def test_install_refuses_a_link_in_place_of_anything_it_writes(tmp_path, outside, capsys, fresh, rel, is_dir):
    with _planted(fresh, rel, is_dir, outside, str(tmp_path)) as before:
        _refused(["install", fresh], fresh, rel, outside, capsys, before)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """One repository install has never run in, shared by the install cases: each plants its link (and the folders
    above it) and takes them out afterwards (a refused install changes nothing), so each starts from this tree."""
    repo = _new_repo(str(tmp_path_factory.mktemp("fresh")))
    TREES[repo] = _tree(repo)
    return repo


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """One drop-in install, shared by the uninstall cases: each plants its link where a path was and puts the path
    back afterwards (a refused uninstall changes nothing), so each case starts from a fresh install's tree."""
    repo = _new_repo(str(tmp_path_factory.mktemp("installed")))
    install.install_project(repo)
    TREES[repo] = _tree(repo)
    return repo


TREES: dict = {}  # a shared repository -> its tree as its fixture left it (each case puts it back so)


@contextlib.contextmanager
def _planted(repo: str, rel: str, is_dir: bool, outside: str, aside: str):
    """A link to ``outside`` in place of ``rel`` for the block; what was there is moved aside and back, and the
    folders made to hold the link are removed. Yields the repository's tree in the block: its tree in ``TREES``
    with the link (and the folders made for it) in place of ``rel``, not read again."""
    path = os.path.join(repo, *rel.split("/"))
    kept = os.path.join(aside, "kept") if os.path.lexists(path) else None
    made, parent = [], os.path.dirname(path)
    while not os.path.lexists(parent):  # the folders _plant makes above the link, taken out again afterwards
        made.append(parent)
        parent = os.path.dirname(parent)
    if kept:
        os.rename(path, kept)
    try:
        target = _plant(repo, rel, is_dir, outside)
        tree = {key: kind for key, kind in TREES[repo].items() if key != rel and not key.startswith(rel + "/")}
        tree.update({os.path.relpath(folder, repo).replace(os.sep, "/"): "dir" for folder in made})
        tree[rel] = ("link", target)
        yield tree
    finally:
        os.unlink(path)
        if kept:
            os.rename(kept, path)
        for folder in made:
            os.rmdir(folder)


@pytest.mark.parametrize("rel,is_dir", INSTALLED, ids=[rel for rel, _ in INSTALLED])
def test_uninstall_refuses_a_link_in_place_of_anything_it_touches(tmp_path, outside, capsys, installed, rel, is_dir):
    if rel.startswith(".claude/commands/") and rel.endswith(".bak"):  # a backup uninstall leaves to the user
        repo = _new_repo(str(tmp_path))
        install.install_project(repo)
        _plant(repo, rel, is_dir, outside)
        _untouched(["uninstall", repo], repo, rel, outside)
        return
    repo = installed
    with _planted(repo, rel, is_dir, outside, str(tmp_path)) as before:
        _refused(["uninstall", repo], repo, rel, outside, capsys, before)


def _untouched(argv, repo, rel, outside) -> None:
    """A command that does not touch ``rel`` runs, and leaves the link there and what it points to alone."""
    link, outside_before = os.readlink(os.path.join(repo, *rel.split("/"))), _tree(outside)
    assert main(argv) == 0
    assert os.readlink(os.path.join(repo, *rel.split("/"))) == link and _tree(outside) == outside_before


@pytest.mark.parametrize("command", [["install", "--plugin"], ["uninstall", "--plugin"]])
@pytest.mark.parametrize("rel,is_dir", PLUGIN_PATHS, ids=[rel for rel, _ in PLUGIN_PATHS])
def test_plugin_setting_refuses_a_link(tmp_path, outside, capsys, command, rel, is_dir):
    repo = _new_repo(str(tmp_path))
    if command[0] == "uninstall":
        install.install_plugin(repo)
    _plant(repo, rel, is_dir, outside)
    if rel == ".gitignore" and command[0] == "uninstall":  # uninstall --plugin never touches .gitignore
        _untouched([*command, repo], repo, rel, outside)
        return
    _refused([*command, repo], repo, rel, outside, capsys)


def test_a_link_elsewhere_in_the_users_folders_is_left_alone(tmp_path, outside):
    """Only what the install touches counts: a user's own linked command file does not stop it."""
    repo = _new_repo(str(tmp_path))
    os.makedirs(os.path.join(repo, ".claude", "commands"))
    os.symlink(os.path.join(outside, "secret.txt"), os.path.join(repo, ".claude", "commands", "deploy.md"))
    assert install.install_project(repo)["markdown_written"]
    assert os.path.islink(os.path.join(repo, ".claude", "commands", "deploy.md"))
