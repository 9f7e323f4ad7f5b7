package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Policy is what a confined program may touch. Everything it does not
// name is refused by the kernel: a file outside Read, Exec and Write cannot
// be opened (a symlink pointing out of an allowed tree does not help, the
// kernel checks the file it reaches), and with Network false no TCP port
// outside Connect and Bind can be used and no other socket can be made.
type Policy struct {
	// Read are files and trees the program may read (and list).
	Read []string `json:"read,omitempty"`
	// Exec are trees whose programs may run; they are readable too.
	Exec []string `json:"exec,omitempty"`
	// Write are files and trees the program may read, create, change and
	// delete in; no program in them may run.
	Write []string `json:"write,omitempty"`
	// Network lets the program use any socket and any TCP port.
	Network bool `json:"network,omitempty"`
	// Connect and Bind are TCP ports allowed without Network.
	Connect []uint16 `json:"connect,omitempty"`
	Bind    []uint16 `json:"bind,omitempty"`
}

// systemExec are the trees that hold the system's programs and libraries:
// read-only to everyone but root, and what any command needs to start.
var systemExec = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store"}

// systemRead are the files under /etc that ordinary programs read (the
// dynamic loader, user and group names, locale, time zone, git's system
// config, libmagic). /etc as a whole is not allowed: it also holds
// /etc/shadow, host keys and service credentials, and Landlock can only
// allow a tree, never a tree minus a file. The devices are the harmless
// ones; /proc is left out (it leads to other processes' environments,
// where agentls's own API keys live).
var systemRead = []string{
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/timezone",
	"/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale", "/etc/alternatives",
	"/etc/gitconfig", "/etc/gitattributes", "/etc/magic", "/etc/mime.types", "/etc/terminfo",
	"/etc/inputrc", "/etc/os-release", "/etc/debian_version", "/etc/python3", "/etc/perl",
	"/etc/mtab", "/etc/environment", "/etc/npmrc", "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates",
	"/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
	"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full",
}

// systemWrite is what every program may write: the data sink.
var systemWrite = []string{"/dev/null"}

// SystemExec lists the system program and library trees a confined program
// may read and run.
func SystemExec() []string { return append([]string(nil), systemExec...) }

// WithSystem returns p plus the system locations every program needs
// (see [SystemExec]), so callers write only what is particular to them.
func (p Policy) WithSystem() Policy {
	q := p
	q.Exec = append(append([]string(nil), systemExec...), p.Exec...)
	q.Read = append(append([]string(nil), systemRead...), p.Read...)
	q.Write = append(append([]string(nil), systemWrite...), p.Write...)
	return q
}

// Summary says in one line what p lets a program touch, for cards and
// listings: "reads /w; writes /s; network: none".
func (p Policy) Summary() string {
	var parts []string
	own := func(list, system []string) []string {
		sys := map[string]bool{}
		for _, s := range system {
			sys[s] = true
		}
		var out []string
		for _, l := range list {
			if !sys[l] {
				out = append(out, l)
			}
		}
		return out
	}
	if r := own(append(own(p.Read, systemRead), own(p.Exec, systemExec)...), nil); len(r) > 0 {
		parts = append(parts, "reads "+strings.Join(r, ", "))
	}
	if w := own(p.Write, systemWrite); len(w) > 0 {
		parts = append(parts, "writes "+strings.Join(w, ", "))
	} else {
		parts = append(parts, "writes nothing")
	}
	switch {
	case p.Network:
		parts = append(parts, "network: any")
	case len(p.Connect)+len(p.Bind) == 0:
		parts = append(parts, "network: none")
	default:
		var ports []string
		for _, c := range p.Connect {
			ports = append(ports, "connect "+strconv.Itoa(int(c)))
		}
		for _, b := range p.Bind {
			ports = append(ports, "listen "+strconv.Itoa(int(b)))
		}
		parts = append(parts, "network: TCP "+strings.Join(ports, ", "))
	}
	return strings.Join(parts, "; ")
}

// PrivateTemp makes an empty folder for one confined program's temporary
// files (sort spills there); the caller removes it with os.RemoveAll when
// the program is done.
func PrivateTemp() (string, error) {
	dir, err := os.MkdirTemp("", "agentls-confined-")
	if err != nil {
		return "", fmt.Errorf("sandbox: private temp folder: %w", err)
	}
	return filepath.EvalSymlinks(dir)
}
