package trust

import (
	"fmt"
	"strings"
)

// readOnlyPrograms is the allow-list: the only programs ClassifyCommand can
// call safe, each with the check its arguments must pass.
var readOnlyPrograms = map[string]func(prog string, args []string) []string{
	"ls": readsPaths, "cat": readsPaths, "head": readsPaths, "tail": readsPaths,
	"wc": readsPaths, "nl": readsPaths, "od": readsPaths, "tac": readsPaths,
	"rev": readsPaths, "fold": readsPaths, "expand": readsPaths, "strings": readsPaths,
	"cut": readsPaths, "tr": readsPaths, "comm": readsPaths, "column": readsPaths,
	"diff": readsPaths, "cmp": readsPaths, "stat": readsPaths, "du": readsPaths,
	"df": readsPaths, "realpath": readsPaths, "readlink": readsPaths,
	"grep": readsPaths, "egrep": readsPaths, "fgrep": readsPaths,
	"sha256sum": readsPaths, "sha1sum": readsPaths, "md5sum": readsPaths, "cksum": readsPaths,
	"echo": printsOnly, "printf": printsOnly, "basename": printsOnly, "dirname": printsOnly,
	"seq": printsOnly, "true": printsOnly, "false": printsOnly, "which": printsOnly,
	"pwd": onlyFlags("-L", "-P"), "whoami": onlyFlags(), "id": onlyFlags("-u", "-g", "-G", "-n", "-un", "-gn"),
	"uname": onlyFlags("-a", "-s", "-n", "-r", "-v", "-m", "-o", "-p", "-i"),
	"nproc": onlyFlags(), "arch": onlyFlags(),
	"hostname": onlyFlags("-f", "-s", "-d", "-i", "-I", "--fqdn", "--short"),
	"date":     onlyFlags("-u", "--utc", "-R", "-I", "--iso-8601", "--rfc-3339=seconds", "+%s", "+%F", "+%Y-%m-%d"),
	"tree":     withFlags(map[string]string{"-o": "writes its output to a file", "--fromfile": "reads a listing from a file"}),
	"file":     withFlags(map[string]string{"-C": "compiles a magic file (writes)", "--compile": "compiles a magic file (writes)"}),
	"sort": withFlags(map[string]string{"-o": "writes its output over a file", "--output": "writes its output over a file",
		"--compress-program": "runs a program"}),
	"rg":   withFlags(map[string]string{"--pre": "runs a preprocessor program on every file", "--pre-glob": "runs a preprocessor program"}),
	"uniq": checkUniq,
	"find": checkFind,
	"git":  checkGit,
	"go":   checkGo,
}

// dangerousPrograms are flagged with a reason that says why; anything not in
// readOnlyPrograms is flagged anyway, this list only explains.
var dangerousPrograms = map[string]string{}

// interpreters run code given with -c / -e; the reason says so.
var interpreters = map[string]bool{}

func init() {
	groups := []struct {
		reason string
		progs  string
	}{
		{"deletes files", "rm rmdir unlink shred"},
		{"writes, moves or replaces files", "mv cp ln install tee truncate touch mkdir dd rsync patch split csplit mkfifo mknod"},
		{"changes permissions or ownership", "chmod chown chgrp chattr setfacl umask"},
		{"runs as another user", "sudo doas su pkexec runuser"},
		{"runs a shell, which can do anything", "sh bash zsh dash ksh mksh fish csh tcsh busybox"},
		{"runs an interpreter, which can do anything", "python python2 python3 pypy pypy3 node nodejs deno bun ruby irb perl php lua luajit Rscript tclsh osascript pwsh powershell java jshell julia elixir erl ghci"},
		{"runs a program (awk's system(), sed's e and w commands) that can run commands and write files", "awk gawk mawk nawk sed"},
		{"uses the network (downloads, uploads or exfiltration)", "curl wget nc ncat netcat socat ssh scp sftp ftp telnet"},
		{"runs another command given as its arguments", "xargs env nice nohup timeout time watch stdbuf setsid chroot strace ltrace unbuffer exec command builtin eval source . flock parallel script"},
		{"builds, installs or runs project code (scripts, hooks and build files can run anything)", "make cmake ninja cargo rustc gcc cc clang npm npx pnpm yarn pip pip3 pipx poetry uv gem bundle composer mvn gradle apt apt-get dpkg yum dnf brew snap pacman apk"},
		{"controls containers, services, processes or the system", "docker podman kubectl systemctl service kill pkill killall reboot shutdown halt poweroff mount umount crontab at iptables useradd usermod passwd"},
		{"is interactive (editors and pagers can run shell commands)", "vi vim nvim emacs nano less more most man"},
		{"prints environment variables, which often hold secrets", "printenv set export declare"},
		{"reads or writes archives", "tar zip unzip gzip gunzip bzip2 xz zstd 7z"},
	}
	for _, g := range groups {
		for _, p := range strings.Fields(g.progs) {
			dangerousPrograms[p] = g.reason
		}
	}
	for _, p := range strings.Fields("sh bash zsh dash ksh mksh fish csh tcsh busybox python python2 python3 pypy pypy3 node nodejs deno bun ruby perl php lua luajit Rscript tclsh pwsh powershell julia elixir erl") {
		interpreters[p] = true
	}
}

// gitReadOnly are the git subcommands that only read the repository, with
// the flags that would make them write or run something.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "annotate": true,
	"shortlog": true, "rev-parse": true, "ls-files": true, "ls-tree": true, "cat-file": true,
	"describe": true, "show-ref": true, "merge-base": true, "rev-list": true, "whatchanged": true,
	"count-objects": true, "check-ignore": true, "name-rev": true, "grep": true, "cherry": true,
	"branch": true, "tag": true, "remote": true, "config": true, "stash": true, "reflog": true,
	"version": true,
}

var gitBadFlags = map[string]string{
	"--output": "writes a file", "-o": "writes a file",
	"--ext-diff": "runs an external diff program", "-O": "runs a pager program",
	"--open-files-in-pager": "runs a pager program", "--exec": "runs a command",
}

var gitWhy = map[string]string{
	"push":  "publishes commits to a remote (with --force it overwrites the remote's history)",
	"reset": "moves HEAD and can discard work (--hard)", "clean": "deletes untracked files",
	"checkout": "changes the working tree and can discard changes (checkout -- FILE)",
	"restore":  "discards changes", "switch": "changes the working tree", "commit": "records a commit",
	"add": "stages files", "rm": "deletes files", "mv": "moves files", "merge": "merges and can run hooks",
	"rebase": "rewrites history", "cherry-pick": "rewrites history", "am": "applies patches", "apply": "applies patches",
	"fetch": "uses the network", "pull": "uses the network and merges", "clone": "uses the network and writes files",
	"gc": "rewrites the object store", "filter-branch": "rewrites history", "submodule": "can fetch and run code",
	"init": "creates a repository", "worktree": "creates or removes working trees",
}

// checkGit accepts read-only subcommands. A repository's own .git/config can
// still name programs git runs (core.fsmonitor, diff.external); that is the
// repository's state, not the command's: a cloned repo cannot ship it, but
// an archive or a committed bare repository can, so the agent checks it
// with GitConfigRisks before autopilot runs git.
func checkGit(prog string, args []string) []string {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		switch a := args[i]; {
		case a == "--no-pager" || a == "-P" || a == "--version" || a == "--help":
		case a == "-C" && i+1 < len(args):
			i++
			if r := pathReason(args[i]); r != "" {
				return []string{"git -C " + r}
			}
		case a == "-c" || strings.HasPrefix(a, "--config-env"):
			return []string{fmt.Sprintf("git %s sets configuration for the command (core.pager, aliases and hooks run code)", a)}
		default:
			return []string{fmt.Sprintf("git %s: unknown global option (git --git-dir/--work-tree/--exec-path can point git at another repository or program)", a)}
		}
	}
	if i == len(args) {
		return nil // git, git --version
	}
	sub, rest := args[i], args[i+1:]
	if !gitReadOnly[sub] {
		if why, ok := gitWhy[sub]; ok {
			return []string{fmt.Sprintf("git %s %s", sub, why)}
		}
		return []string{fmt.Sprintf("git %s is not a known read-only git command", sub)}
	}
	reasons := flaggedArgs("git "+sub, rest, gitBadFlags)
	if r := gitSubcommandWrites(sub, rest); r != "" {
		reasons = append(reasons, r)
	} else if sub == "config" {
		if r := gitConfigReadsOutside(rest); r != "" {
			reasons = append(reasons, r)
		}
	}
	return append(reasons, readsPaths("git "+sub, rest)...)
}

// gitConfigReadsOutside flags a git config read that reaches the user's
// global or system file, outside the workspace, where credentials live
// (http.extraHeader, credential helpers, url.*.insteadOf with tokens): a
// dump of the merged config, --global/--system, or a key named like a
// secret. --local reads only the repository's own file.
func gitConfigReadsOutside(rest []string) string {
	flags := map[string]bool{}
	var keys []string
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			flags[a] = true
		} else {
			keys = append(keys, a)
		}
	}
	switch {
	case flags["--global"] || flags["--system"]:
		return "git config --global/--system reads your git config outside the workspace, which can hold credentials"
	case flags["--local"]:
		return ""
	case flags["--list"] || flags["-l"] || flags["--get-regexp"]:
		return "git config " + strings.Join(rest, " ") + " prints the merged config, including your global file outside the workspace, which can hold credentials (add --local for the repository's own)"
	}
	for _, k := range keys {
		section, _, _ := strings.Cut(strings.ToLower(k), ".")
		switch {
		case section == "http" || section == "credential" || section == "url" || section == "include" || section == "includeif" || secretKey(k):
			return "git config reads " + k + ", which can hold a credential from your global config outside the workspace (add --local for the repository's own)"
		}
	}
	return ""
}

// gitSubcommandWrites catches the read-only subcommands that also have a
// writing form: branch NAME, tag -d, config KEY VALUE, stash drop, reflog expire.
func gitSubcommandWrites(sub string, rest []string) string {
	flags, operands := map[string]bool{}, 0
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			flags[a] = true
		} else {
			operands++
		}
	}
	switch sub {
	case "branch", "tag":
		for f := range flags {
			switch f {
			case "-a", "-r", "-v", "-vv", "--all", "--remotes", "--verbose", "--list", "-l", "--show-current", "-n", "--merged", "--no-merged", "--contains", "--no-contains", "--sort", "--points-at", "--column", "--no-column", "--format":
			default:
				return fmt.Sprintf("git %s %s can create, delete, move or sign refs", sub, f)
			}
		}
		if operands > 0 && !flags["--list"] && !flags["-l"] && !flags["--contains"] && !flags["--merged"] && !flags["--no-merged"] && !flags["--points-at"] {
			return fmt.Sprintf("git %s NAME creates a %s", sub, sub)
		}
	case "remote":
		if len(rest) == 0 || (len(rest) == 1 && (rest[0] == "-v" || rest[0] == "--verbose")) || (len(rest) == 2 && rest[0] == "get-url") {
			return ""
		}
		return "git remote " + strings.Join(rest, " ") + " changes remotes or uses the network"
	case "config":
		read := flags["--get"] || flags["--get-all"] || flags["--get-regexp"] || flags["--list"] || flags["-l"]
		for f := range flags {
			switch f {
			case "--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope", "--local", "--global", "--system", "--null", "-z", "--name-only", "--includes":
			default:
				read = false
			}
		}
		if !read {
			return "git config " + strings.Join(rest, " ") + " can change configuration (only --get and --list are read-only)"
		}
	case "stash":
		if len(rest) > 0 && rest[0] != "list" && rest[0] != "show" {
			return "git stash " + rest[0] + " changes the stash or the working tree"
		}
		if len(rest) == 0 {
			return "git stash with no subcommand stashes (and removes) changes"
		}
	case "reflog":
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && rest[0] != "show" {
			return "git reflog " + rest[0] + " changes the reflog"
		}
	}
	return ""
}
