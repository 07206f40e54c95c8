"""`make install` like a Linux program (issue 18): `make install-files` (the install step of `make install`, without its
release build) puts the binaries already built in .build/debug, the systemd user unit, the desktop entry and its icon,
the man pages generated from the argument parser and the bash/zsh/fish completions under a temporary PREFIX (or
DESTDIR); each file is checked for being what it should be (the unit passes `systemd-analyze --user verify`, the
desktop entry `desktop-file-validate` and really opens the web page's address, `man -l` renders the pages, the shells
load the completions), and `make uninstall` removes every file and nothing else.

Self-contained: module-level helpers only. Installing needs the man page generator, built once by make into
.build-manual (swift-argument-parser's generate-manual; Crate's own targets are not built here)."""
import json
import os
import re
import shutil
import stat
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN_DIR = Path(os.environ.get("CRATE_BIN_DIR", ROOT / ".build" / "debug"))

# What install-files writes, relative to the prefix (the unit's folder depends on the prefix).
UNIT = "crated.service"
LISTED = [
    "bin/crate", "bin/crated",
    "share/applications/crate.desktop",
    "share/icons/hicolor/scalable/apps/crate.svg",
    "share/man/man1/crate.1", "share/man/man1/crated.1",
    "share/bash-completion/completions/crate", "share/bash-completion/completions/crated",
    "share/zsh/site-functions/_crate", "share/zsh/site-functions/_crated",
    "share/fish/vendor_completions.d/crate.fish", "share/fish/vendor_completions.d/crated.fish",
]


def expected_files(unit_dir="lib/systemd/user"):
    return set(LISTED) | {f"{unit_dir}/{UNIT}"}


def files_under(folder):
    """Every file (and symlink) below a folder, relative to it."""
    return {str(p.relative_to(folder)) for p in Path(folder).rglob("*") if p.is_file() or p.is_symlink()}


def clean_env(home, **extra):
    """The environment for a child: a private HOME, no make variables inherited from `make test` itself."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "PREFIX", "DESTDIR", "BIN_DIR",
                        "SYSTEMD_USER_UNIT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "MANPATH",
                        "BASH_COMPLETION_USER_DIR", "CRATE_CONFIG"}
           and not k.startswith("CRATE_")}
    env["HOME"] = str(home)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def make(home, *arguments, check=True):
    """Runs make in the repository with a private HOME; fails the test with make's output when it fails (and should
    not)."""
    result = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *arguments],
                            env=clean_env(home), capture_output=True, text=True, timeout=900)
    if check:
        assert result.returncode == 0, f"make {' '.join(arguments)} failed:\n{result.stdout}\n{result.stderr}"
    return result


def install(home, *arguments):
    return make(home, "install-files", f"BIN_DIR={BIN_DIR}", *arguments)


def run(argv, env, **kwargs):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, **kwargs)


def unit_settings(path):
    """The unit file's settings as {(section, key): [values]} (a key may repeat)."""
    settings, section = {}, None
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        settings.setdefault((section, key.strip()), []).append(value.strip())
    return settings


def desktop_entry(path):
    """The [Desktop Entry] group's keys (values still escaped)."""
    entry, group = {}, None
    for line in Path(path).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("["):
            group = line.strip()
            continue
        if group == "[Desktop Entry]":
            key, _, value = line.partition("=")
            entry[key.strip()] = value.strip()
    return entry


def desktop_exec_argv(value):
    """The argv an Exec value stands for, by the Desktop Entry spec (no field codes but %%): first the string escapes
    are undone, then the quoting, where inside double quotes a backslash escapes ", `, $ or \\ and nothing else."""
    string_escapes = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
    text, i = "", 0
    while i < len(value):
        if value[i] == "\\":
            assert value[i + 1] in string_escapes, f"invalid string escape \\{value[i + 1]} in {value!r}"
            text += string_escapes[value[i + 1]]
            i += 2
        else:
            text += value[i]
            i += 1
    reserved = set(" \t\n\"'\\><~|&;$*?#()`")
    argv, current, i = [], None, 0
    while i < len(text):
        c = text[i]
        if c == " ":
            if current is not None:
                argv.append(current)
            current, i = None, i + 1
        elif c == '"':
            current, i = current or "", i + 1
            while text[i] != '"':
                if text[i] == "\\":
                    assert text[i + 1] in '"`$\\', f"a backslash before {text[i + 1]!r} in a quoted argument"
                    i += 1
                elif text[i] in '`$':
                    raise AssertionError(f"an unescaped {text[i]!r} in a quoted argument of {text!r}")
                if text[i] == "%":
                    assert text[i + 1] == "%", f"a field code %{text[i + 1]} in a quoted argument"
                    i += 1
                current += text[i]
                i += 1
            i += 1
        elif c == "%":
            assert text[i + 1] == "%", f"a field code %{text[i + 1]} (this entry takes none)"
            current, i = (current or "") + "%", i + 2
        else:
            assert c not in reserved, f"reserved character {c!r} outside quotes in {text!r}"
            current, i = (current or "") + c, i + 1
    if current is not None:
        argv.append(current)
    return argv


def man_text(page, env):
    """`man -l PAGE` as plain text; fails on a render error."""
    env = {k: v for k, v in env.items() if k != "MAN_KEEP_FORMATTING"}
    result = run(["man", "-l", str(page)], env={**env, "LC_ALL": "C", "MANWIDTH": "160"})
    assert result.returncode == 0, f"man -l {page} failed: {result.stderr}"
    assert not re.search(r"error|cannot|can't open", result.stderr, re.I), f"man -l {page}: {result.stderr}"
    return re.sub(".\b", "", result.stdout)


def dump_help(binary):
    out = run([str(binary), "--experimental-dump-help"], env=os.environ.copy())
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["command"]


def verify_unit(unit, prefix, home):
    """`systemd-analyze --user verify` on the unit, with the installed man pages on MANPATH (Documentation= names
    them and verify looks them up) and a private runtime folder."""
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    return run(["systemd-analyze", "--user", "verify", str(unit)],
               env=clean_env(home, XDG_RUNTIME_DIR=runtime, MANPATH=f"{prefix}/share/man:"))


def unit_paths(home):
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    result = run(["systemd-analyze", "--user", "unit-paths"], env=clean_env(home, XDG_RUNTIME_DIR=runtime))
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def fake_xdg_open(folder):
    """A folder to put first on PATH, holding an xdg-open that prints what it was asked to open."""
    folder.mkdir(exist_ok=True)
    tool = folder / "xdg-open"
    tool.write_text('#!/bin/sh\nprintf "xdg-open %s\\n" "$@"\n')
    tool.chmod(0o755)
    return folder


def need(tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (scripts/install-deps.sh test installs it)")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """One install into a temporary prefix, shared by the checks of what was installed."""
    for binary in ("crate", "crated"):
        assert (BIN_DIR / binary).exists(), f"{BIN_DIR / binary} is not built (swift build)"
    home = tmp_path_factory.mktemp("home")
    prefix = tmp_path_factory.mktemp("prefix")
    result = install(home, f"PREFIX={prefix}")
    return {"home": home, "prefix": prefix, "output": result.stdout}


def test_every_listed_file_is_installed_and_nothing_else(installed):
    prefix = installed["prefix"]
    assert files_under(prefix) == expected_files()
    for name in expected_files():
        mode = stat.S_IMODE((prefix / name).stat().st_mode)
        assert mode == (0o755 if name.startswith("bin/") else 0o644), f"{name} has mode {oct(mode)}"
        assert (prefix / name).stat().st_size > 0, f"{name} is empty"
    for name in ("lib/systemd/user/crated.service", "share/applications/crate.desktop"):
        assert "@bindir@" not in (prefix / name).read_text(), f"{name} still has @bindir@"


def test_installed_binaries_are_the_built_ones_and_run(installed):
    for binary in ("crate", "crated"):
        target = installed["prefix"] / "bin" / binary
        assert target.read_bytes() == (BIN_DIR / binary).read_bytes(), f"{target} differs from {BIN_DIR / binary}"
        version = run([str(target), "--version"], env=clean_env(installed["home"]))
        assert version.returncode == 0, version.stderr
        assert re.fullmatch(r"\d+\.\d+\.\d+\S*\n", version.stdout), f"{binary} --version: {version.stdout!r}"


def test_systemd_user_unit_starts_the_installed_daemon_and_verifies(installed):
    need("systemd-analyze")
    prefix, home = installed["prefix"], installed["home"]
    unit = prefix / "lib/systemd/user" / UNIT
    settings = unit_settings(unit)
    assert settings[("Service", "ExecStart")] == [f"{prefix}/bin/crated"]
    assert settings[("Service", "Type")] == ["simple"]
    assert settings[("Service", "Restart")] == ["on-failure"]
    assert settings[("Install", "WantedBy")] == ["default.target"]
    assert ("Service", "ProtectHome") not in settings, "the music and the library live in the home folder"
    assert ("Service", "PrivateDevices") not in settings, "ALSA needs /dev/snd"
    assert settings[("Unit", "Documentation")] == ["man:crated(1) man:crate(1)"]
    result = verify_unit(unit, prefix, home)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), result.stderr


def test_desktop_entry_validates_and_opens_the_web_page(installed, tmp_path):
    need("desktop-file-validate")
    prefix, home = installed["prefix"], installed["home"]
    desktop = prefix / "share/applications/crate.desktop"
    result = run(["desktop-file-validate", str(desktop)], env=clean_env(home))
    assert (result.returncode, result.stdout + result.stderr) == (0, ""), result.stdout + result.stderr
    entry = desktop_entry(desktop)
    assert entry["Type"] == "Application"
    assert entry["TryExec"] == f"{prefix}/bin/crate"
    assert entry["Icon"] == "crate"
    icon = ET.parse(prefix / "share/icons/hicolor/scalable/apps/crate.svg").getroot()
    assert icon.tag == "{http://www.w3.org/2000/svg}svg"
    argv = desktop_exec_argv(entry["Exec"])
    assert argv[:2] == ["sh", "-c"] and f"{prefix}/bin/crate config --get http.address" in argv[2], argv
    fake = fake_xdg_open(tmp_path / "fake")
    # The address crated listens on, as crate reads it from the settings, and the page a browser can open there.
    for address, page in [(None, "http://127.0.0.1:6610/"), ("7000", "http://127.0.0.1:7000/"),
                          ("0.0.0.0:7001", "http://127.0.0.1:7001/"), ("[::1]:7002", "http://[::1]:7002/"),
                          ("192.168.1.5:7003", "http://192.168.1.5:7003/")]:
        env = clean_env(home, PATH=f"{fake}:{os.environ['PATH']}")
        if address:
            env["CRATE_HTTP_ADDRESS"] = address
        opened = run(argv, env=env)
        assert (opened.returncode, opened.stdout) == (0, f"xdg-open {page}\n"), (address, opened.stderr)
        if shutil.which("gio"):
            # GLib's own reading of the entry; the launched command writes to gio's stdout, which reaches its end
            # once the command has exited.
            launched = run(["gio", "launch", str(desktop)], env=env)
            assert (launched.returncode, launched.stdout) == (0, f"xdg-open {page}\n"), (address, launched.stderr)


def test_man_pages_render_every_command(installed):
    need("man")
    prefix, env = installed["prefix"], clean_env(installed["home"])
    crate = man_text(prefix / "share/man/man1/crate.1", env)
    assert crate.startswith("CRATE(1)"), crate[:200]
    names = [c["commandName"] for c in dump_help(BIN_DIR / "crate")["subcommands"] if c.get("shouldDisplay", True)]
    assert "play-album" in names
    for name in names:
        assert re.search(rf"^\s+{re.escape(name)}\b", crate, re.M), f"crate.1 does not show the command {name}"
    crated = man_text(prefix / "share/man/man1/crated.1", env)
    assert crated.startswith("CRATED(1)"), crated[:200]
    for argument in dump_help(BIN_DIR / "crated")["arguments"]:
        for name in argument["names"]:
            if name["kind"] == "long":
                assert f"--{name['name']}" in crated, f"crated.1 does not show --{name['name']}"
    found = run(["man", "-w", "crated"], env={**env, "MANPATH": f"{prefix}/share/man"})
    assert found.stdout.strip() == f"{prefix}/share/man/man1/crated.1", found.stderr


def test_bash_loads_the_completions(installed):
    prefix, home = installed["prefix"], installed["home"]
    for command in ("crate", "crated"):
        script = prefix / "share/bash-completion/completions" / command
        loaded = run(["bash", "--norc", "--noprofile", "-c", f'source "{script}" && complete -p {command}'],
                     env=clean_env(home))
        assert loaded.returncode == 0 and f"-F _{command} {command}" in loaded.stdout, loaded.stdout + loaded.stderr
    loader = Path("/usr/share/bash-completion/bash_completion")
    if not loader.exists():
        pytest.skip("bash-completion is not installed (scripts/install-deps.sh test installs it)")
    # bash-completion finds the file on its own, from the prefix's share folder.
    for command in ("crate", "crated"):
        loaded = run(["bash", "--norc", "--noprofile", "-c",
                      f'source {loader}; _completion_loader {command}; complete -p {command}'],
                     env=clean_env(home, XDG_DATA_DIRS=f"{prefix}/share"))
        assert f"-F _{command} {command}" in loaded.stdout, loaded.stdout + loaded.stderr


def test_zsh_loads_the_completions(installed):
    need("zsh")
    prefix, home = installed["prefix"], installed["home"]
    loaded = run(["zsh", "-f", "-c", f"fpath=({prefix}/share/zsh/site-functions $fpath); autoload -Uz compinit; "
                  "compinit -u -D; print -r -- $_comps[crate] $_comps[crated]"], env=clean_env(home))
    assert loaded.stdout == "_crate _crated\n", loaded.stdout + loaded.stderr


def test_fish_completes_crate_commands(installed):
    need("fish")
    prefix, home = installed["prefix"], installed["home"]
    # fish completes commands it finds on PATH, from the vendor folder of a share folder in XDG_DATA_DIRS.
    completed = run(["fish", "-c", 'complete -C"crate play-al"; complete -C"crated --http"'],
                    env=clean_env(home, XDG_DATA_DIRS=f"{prefix}/share", PATH=f"{prefix}/bin:/usr/bin:/bin"))
    lines = [line.split("\t")[0] for line in completed.stdout.splitlines()]
    assert lines == ["play-album", "--http-address"], completed.stdout + completed.stderr


def test_uninstall_removes_every_installed_file_and_nothing_else(tmp_path):
    home, prefix = tmp_path / "home", tmp_path / "prefix"
    home.mkdir()
    install(home, f"PREFIX={prefix}")
    assert files_under(prefix) == expected_files()
    (prefix / "share/man/man1/other.1").write_text("not Crate's\n")
    (prefix / "bin/other").write_text("not Crate's\n")
    make(home, "uninstall", f"PREFIX={prefix}")
    assert files_under(prefix) == {"share/man/man1/other.1", "bin/other"}
    again = make(home, "uninstall", f"PREFIX={prefix}")
    assert "removed" not in again.stdout


def test_destdir_stages_the_default_prefix(tmp_path):
    """No PREFIX: /usr/local, staged under DESTDIR; the files name /usr/local, where systemd --user looks."""
    home, stage = tmp_path / "home", tmp_path / "stage"
    home.mkdir()
    install(home, f"DESTDIR={stage}")
    assert files_under(stage) == {f"usr/local/{name}" for name in expected_files()}
    local = stage / "usr/local"
    unit = unit_settings(local / "lib/systemd/user" / UNIT)
    assert unit[("Service", "ExecStart")] == ["/usr/local/bin/crated"]
    entry = desktop_entry(local / "share/applications/crate.desktop")
    assert entry["TryExec"] == "/usr/local/bin/crate"
    assert "/usr/local/bin/crate config" in desktop_exec_argv(entry["Exec"])[2]
    if shutil.which("systemd-analyze"):
        assert "/usr/local/lib/systemd/user" in unit_paths(home)
    make(home, "uninstall", f"DESTDIR={stage}")
    assert files_under(stage) == set()


def test_home_local_prefix_is_found_without_configuration(tmp_path):
    """PREFIX=~/.local (as zsh passes it, unexpanded): the unit goes where systemd --user reads a user's own units,
    and man, bash-completion and fish find the rest from PATH and HOME alone."""
    home = tmp_path / "home"
    home.mkdir()
    local = home / ".local"
    install(home, "PREFIX=~/.local")
    assert files_under(local) == expected_files("share/systemd/user")
    assert unit_settings(local / "share/systemd/user" / UNIT)[("Service", "ExecStart")] == [f"{local}/bin/crated"]
    env = clean_env(home, PATH=f"{local}/bin:/usr/bin:/bin")
    if shutil.which("systemd-analyze"):
        assert f"{local}/share/systemd/user" in unit_paths(home)
        result = verify_unit(local / "share/systemd/user" / UNIT, local, home)
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
    if shutil.which("man"):
        found = run(["man", "-w", "crate"], env=env)
        assert found.stdout.strip() == f"{local}/share/man/man1/crate.1", found.stdout + found.stderr
    if Path("/usr/share/bash-completion/bash_completion").exists():
        loaded = run(["bash", "--norc", "--noprofile", "-c",
                      "source /usr/share/bash-completion/bash_completion; _completion_loader crate; complete -p crate"],
                     env=env)
        assert "-F _crate crate" in loaded.stdout, loaded.stdout + loaded.stderr
    if shutil.which("fish"):
        completed = run(["fish", "-c", 'complete -C"crate play-al"'], env=env)
        assert completed.stdout.split("\t")[0] == "play-album", completed.stdout + completed.stderr

    # Enabled (as `systemctl --user enable crated` links it), the unit is not removed from under systemd.
    wants = home / ".config/systemd/user/default.target.wants"
    wants.mkdir(parents=True)
    (wants / UNIT).symlink_to(local / "share/systemd/user" / UNIT)
    refused = make(home, "uninstall", "PREFIX=~/.local", check=False)
    assert refused.returncode != 0 and "systemctl --user disable --now crated" in refused.stderr, refused.stderr
    assert files_under(local) == expected_files("share/systemd/user")
    (wants / UNIT).unlink()
    make(home, "uninstall", "PREFIX=~/.local")
    assert files_under(local) == set()


def test_install_refuses_a_prefix_it_cannot_write_into_the_unit(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    for prefix, why in [("relative-prefix-of-test-install", "absolute"), (f"{tmp_path}/a b", "characters")]:
        result = make(home, "install-files", f"BIN_DIR={BIN_DIR}", f"PREFIX={prefix}", check=False)
        assert result.returncode != 0 and why in result.stderr, result.stderr
        assert not (ROOT / prefix).exists() and not Path(prefix).exists()
