# The course's JupyterHub, written by `hub setup` (cmd/hub): read its
# settings from hub.json beside this file. Do not edit: run hub setup again.
import json
import os
import resource

from jupyterhub.spawner import LocalProcessSpawner

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "hub.json")) as f:
    S = json.load(f)

c = get_config()  # noqa: F821
c.JupyterHub.ip = S["ip"]
c.JupyterHub.port = S["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = S["hub_port"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % S["proxy_api_port"]
c.ConfigurableHTTPProxy.pid_file = os.path.join(HERE, "proxy.pid")
c.JupyterHub.pid_file = os.path.join(HERE, "jupyterhub.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(HERE, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(HERE, "cookie_secret")
# The students' servers outlive a restart of the hub (hub restart, after a
# new setup); hub stop stops them.
c.JupyterHub.cleanup_servers = False
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.active_server_limit = S["max_servers"]
c.JupyterHub.concurrent_spawn_limit = S["max_spawns"]
c.JupyterHub.shutdown_on_logout = False

# Students log in with the password of their Linux account (PAM); only the
# roster's accounts may.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set(S["users"])
c.Authenticator.admin_users = set()
c.PAMAuthenticator.open_sessions = False

c.Spawner.notebook_dir = "~"
c.Spawner.default_url = S["default_url"]
c.Spawner.http_timeout = 180
c.Spawner.start_timeout = 180
c.Spawner.cmd = ["/usr/bin/jupyterhub-singleuser"]
c.Spawner.env_keep = ["LANG", "LC_ALL"]
c.Spawner.environment = S["environment"]

LIMITS = S["limits"]


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _cgroup(user, pid):
    """Puts pid into the user's cgroups (v2, or the v1 memory, cpu and pids
    hierarchies), made with the limits; returns what applied."""
    applied = []
    mem, cpus, procs = LIMITS["mem_bytes"], LIMITS["cpus"], LIMITS["procs"]
    quota = int(cpus * 100000)
    v2 = "/sys/fs/cgroup/cgroup.controllers"
    if os.path.exists(v2):
        parent = "/sys/fs/cgroup/stencillab"
        os.makedirs(parent, exist_ok=True)
        try:
            _write(os.path.join(parent, "cgroup.subtree_control"), "+memory +cpu +pids")
        except OSError:
            pass
        d = os.path.join(parent, user)
        os.makedirs(d, exist_ok=True)
        for name, value in (("memory.max", mem), ("memory.swap.max", 0), ("cpu.max", "%d 100000" % quota), ("pids.max", procs)):
            try:
                _write(os.path.join(d, name), value)
                applied.append(name)
            except OSError:
                pass
        _write(os.path.join(d, "cgroup.procs"), pid)
        return applied
    for ctl, files in (("memory", (("memory.limit_in_bytes", mem),)),
                       ("cpu", (("cpu.cfs_period_us", 100000), ("cpu.cfs_quota_us", quota))),
                       ("pids", (("pids.max", procs),))):
        root = "/sys/fs/cgroup/" + ctl
        if not os.path.isdir(root):
            continue
        d = os.path.join(root, "stencillab", user)
        try:
            os.makedirs(d, exist_ok=True)
            for name, value in files:
                _write(os.path.join(d, name), value)
            _write(os.path.join(d, "cgroup.procs"), pid)
            applied.append(ctl)
        except OSError:
            pass
    return applied


class LimitedSpawner(LocalProcessSpawner):
    """The local spawner, whose servers start in the user's cgroups and
    under rlimits: processes (RLIMIT_NPROC, per user), the data segment of
    one process (RLIMIT_DATA) and the size of a file (RLIMIT_FSIZE)."""

    def make_preexec_fn(self, name):
        drop = super().make_preexec_fn(name)

        def preexec():
            try:
                _cgroup(name, os.getpid())
            except OSError:
                pass
            resource.setrlimit(resource.RLIMIT_NPROC, (LIMITS["procs"], LIMITS["procs"]))
            resource.setrlimit(resource.RLIMIT_DATA, (LIMITS["mem_bytes"], LIMITS["mem_bytes"]))
            resource.setrlimit(resource.RLIMIT_FSIZE, (LIMITS["file_bytes"], LIMITS["file_bytes"]))
            drop()

        return preexec


c.JupyterHub.spawner_class = LimitedSpawner
