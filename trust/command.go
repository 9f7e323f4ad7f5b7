package trust

import (
	"fmt"
	"path"
	"strings"
)

// CommandVerdict is the classifier's view of a run_command.
type CommandVerdict struct {
	Safe    bool
	Reasons []string // why it was flagged
}

// ClassifyCommand inspects argv (or, with shell, a shell string in argv[0])
// and calls it safe only when it is a known read-only program with
// arguments known not to write, run code, use the network or read outside
// the working directory. Biased to over-flag: anything unknown is flagged,
// because a false "safe" under autopilot runs without a prompt while a false
// "flagged" costs one click.
//
// With shell false, argv is run exactly as given (no shell), so
// metacharacters inside an argument are literal; dangerous programs and
// arguments are still flagged. With shell true, argv must be one string; any
// shell syntax beyond plain words and quotes flags it.
func ClassifyCommand(argv []string, shell bool) CommandVerdict {
	if shell {
		if len(argv) != 1 {
			return flagged(fmt.Sprintf("a shell command must be exactly one string, got %d", len(argv)))
		}
		words, reasons := splitShell(argv[0])
		if len(reasons) > 0 {
			// Say what the words themselves would do too, when they are known.
			if len(words) > 0 {
				reasons = append(reasons, classifyArgv(words)...)
			}
			return flagged(reasons...)
		}
		argv = words
	}
	return verdict(classifyArgv(argv))
}

func flagged(reasons ...string) CommandVerdict {
	return CommandVerdict{Safe: false, Reasons: reasons}
}

func verdict(reasons []string) CommandVerdict {
	return CommandVerdict{Safe: len(reasons) == 0, Reasons: reasons}
}

func classifyArgv(argv []string) []string {
	if len(argv) == 0 || argv[0] == "" {
		return []string{"empty command"}
	}
	prog := argv[0]
	if strings.Contains(prog, "=") {
		// LD_PRELOAD=…, PAGER=…, GIT_SSH_COMMAND=… all run code.
		return []string{fmt.Sprintf("sets environment variables for the command (%s): variables like LD_PRELOAD, PAGER or GIT_SSH_COMMAND run code", prog)}
	}
	if strings.Contains(prog, "/") {
		return []string{fmt.Sprintf("runs a program by path (%s): only known programs looked up on PATH are judged safe", prog)}
	}
	args := argv[1:]
	if r, ok := dangerousPrograms[prog]; ok {
		reasons := []string{fmt.Sprintf("%s %s", prog, r)}
		if interpreters[prog] {
			for _, a := range args {
				if a == "-c" || a == "-e" || a == "-r" || a == "-E" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "ce")) {
					reasons = append(reasons, fmt.Sprintf("runs code given on the command line (%s %s)", prog, a))
					break
				}
			}
		}
		return reasons
	}
	check, ok := readOnlyPrograms[prog]
	if !ok {
		return []string{fmt.Sprintf("%s is not a known read-only program (the classifier flags anything it does not know)", prog)}
	}
	return check(prog, args)
}

// readsPaths flags arguments that reach outside the working directory or at
// files that usually hold secrets: the command's output goes to the model,
// and "print ~/.ssh/id_rsa" is how a prompt injection exfiltrates a key.
func readsPaths(prog string, args []string) []string {
	var reasons []string
	for _, a := range args {
		v := a
		if strings.HasPrefix(a, "-") {
			i := strings.IndexByte(a, '=')
			if i < 0 {
				continue
			}
			v = a[i+1:]
		}
		if r := pathReason(v); r != "" {
			reasons = append(reasons, fmt.Sprintf("%s %s", prog, r))
		}
	}
	return reasons
}

func pathReason(p string) string {
	switch {
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("reads an absolute path (%s), outside the working directory", p)
	case strings.HasPrefix(p, "~"):
		return fmt.Sprintf("reads the home directory (%s)", p)
	case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
		return fmt.Sprintf("reads a parent directory (%s), outside the working directory", p)
	}
	if secretFile(path.Base(p)) {
		return fmt.Sprintf("reads %s, a file that usually holds secrets", p)
	}
	return ""
}

func secretFile(base string) bool {
	b := strings.ToLower(base)
	switch b {
	case ".env", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", "credentials", ".htpasswd",
		"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".ssh", ".aws", ".gnupg", "shadow", ".envrc":
		return true
	}
	return strings.HasPrefix(b, ".env.") || strings.HasSuffix(b, ".pem") || strings.HasSuffix(b, ".key") ||
		strings.HasSuffix(b, ".p12") || strings.HasSuffix(b, ".pfx") || strings.HasPrefix(b, "id_rsa")
}

// withFlags flags arguments of prog that are in bad (see flaggedArgs) and
// then checks paths.
func withFlags(bad map[string]string) func(string, []string) []string {
	return func(prog string, args []string) []string {
		return append(flaggedArgs(prog, args, bad), readsPaths(prog, args)...)
	}
}

// flaggedArgs gives a reason, "<label> <arg> <why>", for each argument
// that may mean a flag in bad, the way getopt and git's option parser read
// it: a long option also as any prefix of at least two letters ("--outp"
// is --output, GNU and git accept unambiguous abbreviations) with or
// without "=value"; a one-letter option also with its value attached
// ("-oFILE") or bundled after other letters ("-ro FILE"). Over-flags on
// purpose ("-to" where t takes a value is read as -o): a false flag costs
// one click. Options after "--" are operands and not checked.
func flaggedArgs(label string, args []string, bad map[string]string) []string {
	var reasons []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if why, ok := matchFlag(a, bad); ok {
			reasons = append(reasons, label+" "+a+" "+why)
		}
	}
	return reasons
}

func matchFlag(a string, bad map[string]string) (string, bool) {
	if !strings.HasPrefix(a, "-") || a == "-" {
		return "", false
	}
	name := a
	if i := strings.IndexByte(a, '='); i > 0 {
		name = a[:i]
	}
	if why, ok := bad[name]; ok {
		return why, true
	}
	if strings.HasPrefix(name, "--") {
		if len(name) < 3 {
			return "", false
		}
		for flag, why := range bad {
			if strings.HasPrefix(flag, "--") && strings.HasPrefix(flag, name) {
				return why, true
			}
		}
		return "", false
	}
	// A single dash: letters bundled, the first one taking a value ends
	// the bundle; any letter in bad may be where the value starts.
	for _, c := range a[1:] {
		if why, ok := bad["-"+string(c)]; ok {
			return why, true
		}
	}
	return "", false
}

// onlyFlags accepts only the listed arguments: for programs that change the
// system when given anything else (hostname NAME, date -s).
func onlyFlags(ok ...string) func(string, []string) []string {
	allowed := map[string]bool{}
	for _, f := range ok {
		allowed[f] = true
	}
	return func(prog string, args []string) []string {
		for _, a := range args {
			if allowed[a] {
				continue
			}
			if len(ok) == 0 {
				return []string{fmt.Sprintf("%s %s: %s is read-only only without arguments", prog, a, prog)}
			}
			return []string{fmt.Sprintf("%s %s: only %s %s are known to be read-only", prog, a, prog, strings.Join(ok, ", "))}
		}
		return nil
	}
}

func printsOnly(string, []string) []string { return nil }

func checkFind(prog string, args []string) []string {
	bad := map[string]string{
		"-exec": "runs a command for each file", "-execdir": "runs a command for each file",
		"-ok": "runs a command for each file", "-okdir": "runs a command for each file",
		"-delete": "deletes files", "-fprint": "writes a file", "-fprint0": "writes a file",
		"-fprintf": "writes a file", "-fls": "writes a file",
	}
	var reasons []string
	for _, a := range args {
		if r, ok := bad[a]; ok {
			reasons = append(reasons, fmt.Sprintf("find %s %s", a, r))
		}
	}
	// Starting points come before the first expression.
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		if r := pathReason(a); r != "" {
			reasons = append(reasons, "find "+r)
		}
	}
	return reasons
}

func checkUniq(prog string, args []string) []string {
	n := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			n++
		}
	}
	reasons := readsPaths(prog, args)
	if n > 1 {
		reasons = append(reasons, "uniq with a second file writes its output over that file")
	}
	return reasons
}

func checkGo(prog string, args []string) []string {
	if len(args) == 0 {
		return []string{"go with no subcommand"}
	}
	switch args[0] {
	case "version":
		return nil
	case "env":
		for _, a := range args[1:] {
			if a == "-w" || a == "-u" {
				return []string{fmt.Sprintf("go env %s changes the Go configuration", a)}
			}
		}
		return nil
	}
	return []string{fmt.Sprintf("go %s builds or runs code (tests, generators, cgo and build tools run anything); only go version and go env are read-only", args[0])}
}
