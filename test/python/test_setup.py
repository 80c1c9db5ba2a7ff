"""hookbus.setup() from Python: the same gate as C++. A project's hooks run
only once the user trusted it (with hookctl trust), and then hookbus's own
hooks and Claude Code's run unchanged."""

import os
import pathlib
import subprocess

import pytest

import hookbus

HOOKCTL = os.environ.get("HOOKBUS_HOOKCTL", "")
pytestmark = pytest.mark.skipif(not HOOKCTL, reason="needs hookctl (HOOKBUS_HOOKCTL) to trust a project")


def write(path, text, mode=0o644):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


@pytest.fixture
def project(tmp_path, scratch_home):
    """A project with a hookbus hook and a Claude Code hook, in a scratch home."""
    root = tmp_path / "project"
    write(root / ".hookbus/hooks/no-rm", "#!/bin/sh\n"
          "if [ \"$1\" = hook ]; then echo tool_call; exit 0; fi\n"
          f"touch '{tmp_path}/no-rm-ran'\n"
          "case \"$(cat)\" in *'rm -rf'*) echo '{\"decision\": \"deny\", \"reason\": \"no rm here\"}';; esac\n", 0o755)
    write(root / ".hookbus/config.json", '{"claude_code": {"settings": ["project"]}}\n')
    write(root / ".claude/hooks/no-curl", "#!/bin/sh\n"
          "grep -q 'curl x' || exit 0\n"
          "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
          "\"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"no curl\"}}'\n", 0o755)
    write(root / ".claude/settings.json",
          '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": '
          '[{"type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/no-curl"}]}]}}\n')
    return root


def trust(project):
    run = subprocess.run([HOOKCTL, "trust"], cwd=project, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def bash(hooks, command):
    return hooks.emit("tool_call", tool_call_id="1", tool_name="Bash", input={"command": command})


def test_an_untrusted_projects_hooks_do_not_run_and_the_report_says_how_to_trust_it(project):
    hooks = hookbus.Hooks()
    with hookbus.setup(hooks, project_dir=project) as installation:
        assert installation.report["trust"]["state"] == "untrusted"
        assert "hookctl trust" in installation.report["trust"]["message"]
        assert bash(hooks, "rm -rf /").decision == "none"
        assert bash(hooks, "curl x").decision == "none"
    assert not (project.parent / "no-rm-ran").exists()


def test_a_trusted_projects_hookbus_and_claude_code_hooks_decide(project):
    trust(project)
    hooks = hookbus.Hooks()
    with hookbus.setup(hooks, project_dir=project) as installation:
        assert installation.report["trust"]["state"] == "trusted"
        assert {hook["protocol"] for hook in installation.report["hooks"]} == {"hookbus", "claude_code"}
        denied = bash(hooks, "rm -rf /")
        assert (denied.decision, denied.reason) == ("deny", "no rm here")
        assert bash(hooks, "curl x").reason == "no curl"
        assert bash(hooks, "ls").decision == "none"


def test_a_hook_changed_after_trust_does_not_run(project):
    trust(project)
    hook = project / ".hookbus/hooks/no-rm"
    write(hook, hook.read_text().replace("no rm here", "changed"), 0o755)
    hooks = hookbus.Hooks()
    with hookbus.setup(hooks, project_dir=project) as installation:
        assert installation.report["trust"]["state"] == "changed"
        assert bash(hooks, "rm -rf /").decision == "none"


def test_an_installation_python_drops_is_uninstalled(project):
    trust(project)
    hooks = hookbus.Hooks()
    hookbus.setup(hooks, project_dir=project)  # not kept
    assert bash(hooks, "rm -rf /").decision == "none"
    hookbus.setup(hooks, project_dir=project).keep()
    assert bash(hooks, "rm -rf /").decision == "deny"


def test_an_unknown_trust_policy_lists_the_policies(project):
    with pytest.raises(ValueError, match="trust_all, require, ignore"):
        hookbus.setup(hookbus.Hooks(), project_dir=project, project_trust="always")
