// Package hub serves the lab to a class from one machine (cmd/hub is its
// command): a JupyterHub
// (Debian's jupyterhub and configurable-http-proxy) with one Linux
// account per roster row, the students' copy in each home and the GoNB
// kernel for every user.
//
// Usage (as root; scripts/hub.sh installs the packages and runs setup and
// start, as `make hub ROSTER=roster.csv` does):
//
//	hub setup -roster FILE [-state DIR] [-shared DIR] [-homes DIR] [-ip IP] [-port N]
//	          [-mem SIZE] [-cpus F] [-procs N]
//	hub start [-state DIR] [-foreground]
//	hub stop [-state DIR] [-keep-servers]
//	hub restart [-state DIR]
//	hub remove -roster FILE [-state DIR] [-homes DIR]
//
// setup makes, for each roster row, the account UserName(id) of package
// exercises/collect (in the group stencillab-students; an existing
// account outside that group is refused, never taken over) with a random
// password, written with the id into STATE/accounts.csv, which only root
// reads (mode 0600, STATE 0700); the students' copy (cmd/release) in
// ~/stencil-lab, the home 0700; the kernel and the tools every user needs
// in SHARED (gonb, goimports, the Go module cache, read-only, which the
// students' go commands read as a file proxy and never download into);
// and the hub's configuration in STATE. Run again with a longer roster,
// it adds the new students and keeps everyone's password and home.
//
// Each student's server starts in their cgroups (memory, CPU quota,
// processes; v2, or v1's memory, cpu and pids hierarchies) and under
// rlimits (RLIMIT_NPROC, RLIMIT_DATA, RLIMIT_FSIZE), so that a runaway
// kernel cannot starve the class. On a machine with an NVIDIA GPU, the
// students' kernels share it (the device nodes must be readable by them;
// setup adds the accounts to the nodes' group); without one, the lab's
// simulated machine runs every kernel.
//
// The instructor's copy of the repository is made unreadable to others
// (chmod o-rwx of its root): the solutions and the hidden checks are
// never readable by a student account.
package hub

import (
	"bufio"
	"crypto/rand"
	_ "embed"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"stencillab.dev/exercises/collect"
	"stencillab.dev/exercises/gradebook"
)

//go:embed jupyterhub_config.py
var configPy []byte

// Group is the group of the students' accounts: the hub manages no other
// account.
const Group = "stencillab-students"

// Defaults.
const (
	defaultState  = "/var/lib/stencillab-hub"
	defaultShared = "/usr/local/lib/stencillab-hub"
	defaultHomes  = "/home"
	kernelDir     = "/usr/local/share/jupyter/kernels/gonb"
)

// Main runs the hub command with args (without the program's name),
// writing to stdout and stderr, and returns its exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: hub setup|start|stop|restart|remove [flags] (hub CMD -h for the flags)")
		return 2
	}
	var err error
	switch args[0] {
	case "setup":
		err = runSetup(args[1:], stdout, stderr)
	case "start":
		err = runStart(args[1:], stdout, stderr)
	case "stop":
		err = runStop(args[1:], stdout, stderr)
	case "restart":
		// A new setup (more students, other limits) takes effect; the
		// students' servers keep running.
		if err = runStop(append([]string{"-keep-servers"}, args[1:]...), stdout, stderr); err == nil {
			err = runStart(args[1:], stdout, stderr)
		}
	case "remove":
		err = runRemove(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "hub: %s: not setup, start, stop, restart or remove\n", args[0])
		return 2
	}
	if errors.Is(err, errUsage) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "hub %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

var errUsage = errors.New("usage")

// Settings are the hub's settings, STATE/hub.json, which its
// configuration reads.
type Settings struct {
	IP           string            `json:"ip"`
	Port         int               `json:"port"`
	HubPort      int               `json:"hub_port"`
	ProxyAPIPort int               `json:"proxy_api_port"`
	Users        []string          `json:"users"`
	DefaultURL   string            `json:"default_url"`
	Environment  map[string]string `json:"environment"`
	Limits       Limits            `json:"limits"`
	MaxServers   int               `json:"max_servers"`
	MaxSpawns    int               `json:"max_spawns"`
	Homes        string            `json:"homes"`
	Shared       string            `json:"shared"`
	GPU          bool              `json:"gpu"`
}

// Limits are each student's limits.
type Limits struct {
	MemBytes  int64   `json:"mem_bytes"`
	CPUs      float64 `json:"cpus"`
	Procs     int     `json:"procs"`
	FileBytes int64   `json:"file_bytes"`
}

// parseSize reads 2GiB, 512MiB, or bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(s, u.suf) {
			mult, s = u.m, strings.TrimSuffix(s, u.suf)
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<50)/mult {
		return 0, fmt.Errorf("%q is not a size such as 2GiB or 512MiB", s)
	}
	return n * mult, nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// sh runs a command, its output in the error when it fails.
func sh(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// password returns a random password of 20 letters and digits, without
// the ones read alike (0/O, 1/l/I).
func password() (string, error) {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", err
		}
		b[i] = alphabet[n.Int64()]
	}
	return string(b), nil
}

// Account is a row of STATE/accounts.csv.
type Account struct{ ID, User, Password string }

// readAccounts reads STATE/accounts.csv, none when it does not exist.
func readAccounts(state string) (map[string]Account, error) {
	f, err := os.Open(filepath.Join(state, "accounts.csv"))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Account{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("accounts.csv: %w", err)
	}
	out := map[string]Account{}
	for i, r := range recs {
		if i == 0 || len(r) != 3 {
			continue
		}
		out[r[0]] = Account{r[0], r[1], r[2]}
	}
	return out, nil
}

// writeAccounts writes STATE/accounts.csv, mode 0600, in the order of
// the accounts' names.
func writeAccounts(state string, acc map[string]Account) error {
	var list []Account
	for _, a := range acc {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].User < list[j].User })
	var b strings.Builder
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"id", "user", "password"})
	for _, a := range list {
		_ = w.Write([]string{gradebook.SafeCell(a.ID), a.User, a.Password})
	}
	w.Flush()
	p := filepath.Join(state, "accounts.csv")
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// inGroup reports whether the account u is a member of Group.
func inGroup(u *user.User) bool {
	g, err := user.LookupGroup(Group)
	if err != nil {
		return false
	}
	ids, err := u.GroupIds()
	if err != nil {
		return false
	}
	for _, id := range ids {
		if id == g.Gid {
			return true
		}
	}
	return false
}

// repoRoot is the repository of the working folder.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", errors.New("run it inside the lab's repository (go env GOMOD is empty)")
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

func runSetup(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hub setup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		rosterF = fs.String("roster", "", "the roster (CSV: id, then name, email, sis_id, login, section)")
		state   = fs.String("state", defaultState, "the hub's own folder (root only): configuration, database, accounts.csv, the handed-out copy")
		shared  = fs.String("shared", defaultShared, "the folder of what every user runs: gonb, goimports, the module cache")
		homes   = fs.String("homes", defaultHomes, "the folder of the students' homes")
		ip      = fs.String("ip", "127.0.0.1", "the address the hub listens on (0.0.0.0: every interface, behind TLS)")
		port    = fs.Int("port", 8000, "the hub's port (0: a free one)")
		mem     = fs.String("mem", "3GiB", "the memory of one student (cgroup; each process's data segment too)")
		cpus    = fs.Float64("cpus", 1, "the CPUs one student may use at once (a cgroup quota)")
		procs   = fs.Int("procs", 512, "the processes and threads of one student")
	)
	if err := fs.Parse(args); err != nil || *rosterF == "" || fs.NArg() > 0 {
		if err == nil {
			fs.Usage()
		}
		return errUsage
	}
	memBytes, err := parseSize(*mem)
	if err != nil {
		return fmt.Errorf("-mem: %w", err)
	}
	if *cpus <= 0 || *procs < 64 {
		return fmt.Errorf("-cpus %g must be positive and -procs %d at least 64 (a Go build needs them)", *cpus, *procs)
	}
	if os.Geteuid() != 0 {
		return errors.New("must run as root: it makes accounts")
	}
	roster, err := gradebook.ReadRosterFile(*rosterF)
	if err != nil {
		return err
	}
	users, err := collect.UserNames(roster)
	if err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	for _, d := range []string{*state, *shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(*state, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(*shared, 0o755); err != nil {
		return err
	}
	// The instructor's copy: nobody else may enter it.
	if err := os.Chmod(root, 0o750); err != nil {
		return fmt.Errorf("close the instructor's copy: %w", err)
	}
	fmt.Fprintf(stdout, "hub setup: the instructor's copy %s is closed to other accounts (mode 0750)\n", root)

	// The students' copy, made once per setup into STATE/handout.
	handout := filepath.Join(*state, "handout")
	if err := os.RemoveAll(handout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "hub setup: making the students' copy (go run ./cmd/release)")
	rel := exec.Command("go", "run", "./cmd/release", "-out", handout)
	rel.Dir = root
	if out, err := rel.CombinedOutput(); err != nil {
		return fmt.Errorf("cmd/release: %w: %s", err, out)
	}
	env, err := shareTools(root, handout, *shared, stdout)
	if err != nil {
		return err
	}

	// The accounts.
	if _, err := user.LookupGroup(Group); err != nil {
		if err := sh("groupadd", "--system", Group); err != nil {
			return err
		}
	}
	gpuGroups := gpuGroups()
	acc, err := readAccounts(*state)
	if err != nil {
		return err
	}
	var list []string
	for _, p := range roster.People {
		name := users[p.ID]
		home := filepath.Join(*homes, name)
		u, err := user.Lookup(name)
		switch {
		case err == nil && !inGroup(u):
			return fmt.Errorf("the account %s (roster id %s) exists and is not a student's (not in %s): give the student another id", name, gradebook.QuoteName(p.ID), Group)
		case err == nil:
		default:
			if err := sh("useradd", "--create-home", "--home-dir", home, "--shell", "/bin/bash", "--gid", Group, "--no-user-group", name); err != nil {
				return err
			}
			if u, err = user.Lookup(name); err != nil {
				return err
			}
		}
		a, ok := acc[p.ID]
		if !ok || a.User != name {
			pw, err := password()
			if err != nil {
				return err
			}
			a = Account{p.ID, name, pw}
			c := exec.Command("chpasswd")
			c.Stdin = strings.NewReader(name + ":" + pw + "\n")
			if out, err := c.CombinedOutput(); err != nil {
				return fmt.Errorf("chpasswd %s: %w: %s", name, err, out)
			}
			acc[p.ID] = a
		}
		for _, g := range gpuGroups {
			_ = sh("usermod", "-a", "-G", g, name)
		}
		if err := os.Chmod(home, 0o700); err != nil {
			return err
		}
		copyDir := filepath.Join(home, collect.CopyDir)
		if _, err := os.Lstat(copyDir); errors.Is(err, os.ErrNotExist) {
			if err := sh("cp", "-a", handout, copyDir); err != nil {
				return err
			}
			if err := sh("chown", "-R", "--no-dereference", name+":"+Group, copyDir); err != nil {
				return err
			}
		}
		seedCache(filepath.Join(*shared, "gocache"), home, name, stdout)
		list = append(list, name)
	}
	if err := writeAccounts(*state, acc); err != nil {
		return err
	}
	sort.Strings(list)
	// Keep ports already chosen, so that a second setup does not move
	// the hub.
	var old Settings
	if b, err := os.ReadFile(filepath.Join(*state, "hub.json")); err == nil {
		_ = json.Unmarshal(b, &old)
	}
	s := Settings{IP: *ip, Port: *port, Users: list, Environment: env, Homes: *homes, Shared: *shared,
		DefaultURL: "/tree/" + collect.CopyDir + "/notebooks",
		Limits:     Limits{MemBytes: memBytes, CPUs: *cpus, Procs: *procs, FileBytes: 4 << 30},
		MaxServers: 0, MaxSpawns: 50, GPU: len(gpuDevices()) > 0}
	if s.Port == 0 {
		s.Port = old.Port // a setup again keeps the port chosen
	}
	if s.Port == 0 {
		if s.Port, err = freePort(); err != nil {
			return err
		}
	}
	s.HubPort, s.ProxyAPIPort = old.HubPort, old.ProxyAPIPort
	for _, p := range []*int{&s.HubPort, &s.ProxyAPIPort} {
		if *p == 0 {
			if *p, err = freePort(); err != nil {
				return err
			}
		}
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(filepath.Join(*state, "hub.json"), append(b, '\n'), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*state, "jupyterhub_config.py"), configPy, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "hub setup: %d accounts; their passwords are in %s (root only); the hub will listen on http://%s:%d\n",
		len(list), filepath.Join(*state, "accounts.csv"), s.IP, s.Port)
	if s.GPU {
		fmt.Fprintln(stdout, "hub setup: an NVIDIA GPU is here: the students' kernels share it")
	} else {
		fmt.Fprintln(stdout, "hub setup: no GPU here: the students' kernels run on the lab's simulated machine")
	}
	return nil
}

// seedCache gives the student's home a build cache linked to the
// template tmpl, when it has none; where links cannot be made (another
// file system) the student's first run builds the lab.
func seedCache(tmpl, home, name string, stdout io.Writer) {
	dir := filepath.Join(home, ".cache", "go-build")
	if _, err := os.Lstat(dir); err == nil {
		return
	}
	cache := filepath.Join(home, ".cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return
	}
	_ = os.Chown(cache, -1, -1)
	err := sh("cp", "-al", tmpl, dir)
	if err == nil {
		// Folders and the cache's own small files are the student's.
		for _, f := range []string{"README", "trim.txt"} {
			p := filepath.Join(dir, f)
			if b, rerr := os.ReadFile(p); rerr == nil {
				_ = os.Remove(p)
				_ = os.WriteFile(p, b, 0o644)
			}
		}
		err = sh("find", cache, "-type", "d", "-exec", "chown", name+":"+Group, "{}", "+")
	}
	if err == nil {
		err = sh("find", dir, "-maxdepth", "1", "-type", "f", "-exec", "chown", name+":"+Group, "{}", "+")
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		fmt.Fprintf(stdout, "hub setup: %s's build cache not seeded (%v): the first notebook builds the lab\n", name, err)
	}
}

// gpuDevices lists the NVIDIA device nodes.
func gpuDevices() []string {
	m, _ := filepath.Glob("/dev/nvidia*")
	return m
}

// gpuGroups are the groups of the GPU's device nodes that others cannot
// use: the students join them.
func gpuGroups() []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range gpuDevices() {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o006 == 0o006 {
			continue
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok || sys.Gid == 0 {
			continue
		}
		g, err := user.LookupGroupId(strconv.Itoa(int(sys.Gid)))
		if err == nil && !seen[g.Name] {
			seen[g.Name] = true
			out = append(out, g.Name)
		}
	}
	return out
}

// studentGoFlags are the go command's flags for the students' builds, and
// for the build of the cache they start from: the module's requirements as
// the handout states them, and -trimpath, which keeps the folder a package
// was built in out of its build cache key.
const studentGoFlags = "-mod=mod -trimpath"

// shareTools puts what every user's kernel runs into shared: gonb and
// goimports (copied from the instructor's GOPATH/bin), the module cache
// of the students' copy (read-only), and registers the kernel for every
// user. It returns the environment of the students' servers.
func shareTools(root, handout, shared string, stdout io.Writer) (map[string]string, error) {
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOPATH: %w", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	goRootOut, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	goRoot := strings.TrimSpace(string(goRootOut))
	bin := filepath.Join(shared, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, err
	}
	for _, tool := range []string{"gonb", "goimports", "gopls"} {
		src := filepath.Join(strings.TrimSpace(string(gopath)), "bin", tool)
		if _, err := os.Stat(src); err != nil {
			if tool == "gopls" {
				continue
			}
			return nil, fmt.Errorf("%s is missing: run scripts/install-gonb.sh first", src)
		}
		if err := sh("install", "-m", "0755", src, filepath.Join(bin, tool)); err != nil {
			return nil, err
		}
	}
	// The Go toolchain must be readable by everyone.
	if st, err := os.Stat(goRoot); err != nil || st.Mode().Perm()&0o005 != 0o005 {
		return nil, fmt.Errorf("the Go toolchain %s is not readable by other users: install Go where they can run it (/usr/local/go)", goRoot)
	}
	modCache := filepath.Join(shared, "gomod")
	fmt.Fprintln(stdout, "hub setup: filling the students' module cache (go mod download)")
	myCache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	myProxy, _ := exec.Command("go", "env", "GOPROXY").Output()
	dl := exec.Command("go", "mod", "download")
	dl.Dir = handout
	dl.Env = append(os.Environ(), "GOMODCACHE="+modCache, "GOFLAGS=-mod=mod",
		"GOPROXY=file://"+filepath.Join(strings.TrimSpace(string(myCache)), "cache", "download")+","+strings.TrimSpace(string(myProxy)))
	if out, err := dl.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go mod download: %w: %s", err, out)
	}
	if err := sh("chmod", "-R", "a+rX", modCache); err != nil {
		return nil, err
	}
	// A build cache every student's starts from: the lab's packages and
	// their modules, built once here. Each student's cache links its files
	// (cp -al): no student can change them (root's, read-only), and their
	// times lie in the future, so that Go never needs to touch them. Built,
	// as the students build, with -trimpath (studentGoFlags), the lab's own
	// packages are found there too, though each student's copy of the
	// course lies in another folder than the one built here.
	fmt.Fprintln(stdout, "hub setup: building the students' first build cache (go build ./...: a few minutes the first time)")
	tmpl := filepath.Join(shared, "gocache")
	if err := os.RemoveAll(tmpl); err != nil {
		return nil, err
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = handout
	build.Env = append(os.Environ(), "GOCACHE="+tmpl, "GOMODCACHE="+modCache, "GOFLAGS="+studentGoFlags, "GOTOOLCHAIN=local",
		"GOPROXY=file://"+filepath.Join(modCache, "cache", "download"), "GOSUMDB=off")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./... of the students' copy: %w: %s", err, out)
	}
	if err := sh("find", tmpl, "-type", "f", "-exec", "touch", "-d", "2100-01-01", "{}", "+"); err != nil {
		return nil, err
	}
	if err := sh("chmod", "-R", "a+rX,go-w", tmpl); err != nil {
		return nil, err
	}
	// The kernel, for every user.
	if err := os.MkdirAll(kernelDir, 0o755); err != nil {
		return nil, err
	}
	spec := map[string]any{
		"argv": []string{filepath.Join(bin, "gonb"), "--kernel", "{connection_file}", "-logtostderr=false", "-alsologtostderr=false",
			"-log_file=/dev/null", "-raw_error=true", "-stderrthreshold=3"},
		"display_name": "Go (gonb)", "language": "go", "interrupt_mode": "message", "env": map[string]string{},
	}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(filepath.Join(kernelDir, "kernel.json"), b, 0o644); err != nil {
		return nil, err
	}
	path := bin + ":" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin"
	return map[string]string{
		"PATH":        path,
		"GOMODCACHE":  modCache,
		"GOPROXY":     "file://" + filepath.Join(modCache, "cache", "download"),
		"GOSUMDB":     "off",
		"GOTOOLCHAIN": "local",
		"GOFLAGS":     studentGoFlags,
		// The notebooks' sliders come up in a browser.
		"STENCILLAB_BROWSER": "1",
	}, nil
}

func readSettings(state string) (*Settings, error) {
	b, err := os.ReadFile(filepath.Join(state, "hub.json"))
	if err != nil {
		return nil, fmt.Errorf("%w (run hub setup first)", err)
	}
	var s Settings
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("hub.json: %w", err)
	}
	return &s, nil
}

func runStart(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hub start", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", defaultState, "the hub's folder (hub setup's -state)")
	fg := fs.Bool("foreground", false, "stay in the foreground (for a service manager)")
	wait := fs.Duration("wait", 60*time.Second, "how long to wait for the hub to answer")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return errUsage
	}
	s, err := readSettings(*state)
	if err != nil {
		return err
	}
	if pid := runningPid(*state); pid > 0 {
		fmt.Fprintf(stdout, "hub start: already running (pid %d) on http://%s:%d; hub restart applies a new setup\n", pid, s.IP, s.Port)
		return nil
	}
	cmd := exec.Command("/usr/bin/jupyterhub", "-f", filepath.Join(*state, "jupyterhub_config.py"))
	cmd.Dir = *state
	// Debian's proxy finds its modules in Debian's node folders, which a
	// Node.js from elsewhere (NodeSource) does not search by itself.
	cmd.Env = append(os.Environ(), "NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs")
	if *fg {
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return cmd.Run()
	}
	log, err := os.OpenFile(filepath.Join(*state, "hub.log"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(*wait)
	url := net.JoinHostPort(dialable(s.IP), strconv.Itoa(s.Port))
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", url, time.Second); err == nil {
			c.Close()
			fmt.Fprintf(stdout, "hub start: JupyterHub (pid %d) answers on http://%s; its log: %s\n", cmd.Process.Pid, url, filepath.Join(*state, "hub.log"))
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("JupyterHub stopped at its start: see %s", filepath.Join(*state, "hub.log"))
		case <-time.After(500 * time.Millisecond):
		}
	}
	return fmt.Errorf("JupyterHub did not answer on %s within %s: see %s", url, *wait, filepath.Join(*state, "hub.log"))
}

func dialable(ip string) string {
	if ip == "0.0.0.0" || ip == "" {
		return "127.0.0.1"
	}
	return ip
}

// runningPid is the pid of the hub when it runs.
func runningPid(state string) int {
	b, err := os.ReadFile(filepath.Join(state, "jupyterhub.pid"))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return 0
	}
	if syscall.Kill(pid, 0) != nil {
		return 0
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !strings.Contains(string(cmdline), "jupyterhub") {
		return 0
	}
	return pid
}

func runStop(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hub stop", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", defaultState, "the hub's folder (hub setup's -state)")
	keep := fs.Bool("keep-servers", false, "stop the hub and its proxy only, not the students' servers")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return errUsage
	}
	if pid := runningPid(*state); pid > 0 {
		// JupyterHub stops its proxy on SIGTERM (cleanup_proxy), not the
		// students' servers (cleanup_servers is off, for restarts).
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 60 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(500 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		fmt.Fprintf(stdout, "hub stop: stopped JupyterHub (pid %d)\n", pid)
	} else {
		fmt.Fprintln(stdout, "hub stop: JupyterHub is not running")
	}
	if *keep {
		return nil
	}
	s, err := readSettings(*state)
	if err != nil {
		return nil // never set up: no student's server either
	}
	n := 0
	for _, name := range s.Users {
		u, err := user.Lookup(name)
		if err != nil || !inGroup(u) {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		n += stopUser(uid)
	}
	fmt.Fprintf(stdout, "hub stop: stopped %d processes of the students\n", n)
	return nil
}

// stopUser stops every process of the account uid, by its pid: SIGTERM,
// then SIGKILL to those left after 5 s. It returns how many there were.
func stopUser(uid int) int {
	pids := UserPids(uid)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	for i := 0; i < 10 && len(UserPids(uid)) > 0; i++ {
		time.Sleep(500 * time.Millisecond)
	}
	for i := 0; i < 3; i++ {
		left := UserPids(uid)
		if len(left) == 0 {
			break
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return len(pids)
}

// UserPids lists the processes of the account uid.
func UserPids(uid int) []int {
	des, _ := os.ReadDir("/proc")
	var out []int
	for _, d := range des {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		st, err := os.Stat("/proc/" + d.Name())
		if err != nil {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) == uid {
			out = append(out, pid)
		}
	}
	return out
}

func runRemove(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("hub remove", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rosterF := fs.String("roster", "", "the roster whose accounts to remove (with their homes)")
	state := fs.String("state", defaultState, "the hub's folder (hub setup's -state)")
	if err := fs.Parse(args); err != nil || *rosterF == "" || fs.NArg() > 0 {
		return errUsage
	}
	roster, err := gradebook.ReadRosterFile(*rosterF)
	if err != nil {
		return err
	}
	users, err := collect.UserNames(roster)
	if err != nil {
		return err
	}
	n := 0
	for _, p := range roster.People {
		u, err := user.Lookup(users[p.ID])
		if err != nil || !inGroup(u) {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		stopUser(uid)
		if err := sh("userdel", "--remove", u.Username); err != nil {
			fmt.Fprintf(stderr, "hub remove: %v\n", err)
			continue
		}
		for _, cg := range []string{"/sys/fs/cgroup/stencillab/", "/sys/fs/cgroup/memory/stencillab/", "/sys/fs/cgroup/cpu/stencillab/", "/sys/fs/cgroup/pids/stencillab/"} {
			_ = os.Remove(cg + u.Username)
		}
		n++
	}
	fmt.Fprintf(stdout, "hub remove: removed %d accounts and their homes\n", n)
	if acc, err := readAccounts(*state); err == nil && len(acc) > 0 {
		for _, p := range roster.People {
			delete(acc, p.ID)
		}
		_ = writeAccounts(*state, acc)
	}
	return nil
}
