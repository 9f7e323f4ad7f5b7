package prompt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// agentsMDName is the project-rules file read from the first workspace folder.
const agentsMDName = "AGENTS.md"

// maxAgentsMD bounds the bytes of AGENTS.md that go into the prompt.
const maxAgentsMD = 16 << 10

// agentsMD reads the project rules of the workspace folder root. The text
// goes into every model request with no card, so it is read confined: through
// an os.Root, which refuses a link that leaves root (AGENTS.md -> /proc/self/environ
// would send agentls's environment, API keys included, to the model), opened
// without blocking (a FIFO with no writer), checked on the opened file to be a
// regular file (not /dev/zero, read without end), and read with a bound.
// A refused AGENTS.md yields a note saying why instead of its text; a missing
// one yields neither.
func agentsMD(root string) (text, refused string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", ""
	}
	defer r.Close()
	f, err := r.OpenFile(agentsMDName, os.O_RDONLY|agentsMDOpenFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ""
	}
	if err != nil {
		return "", agentsMDRefusal(root, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Sprintf("%s was not read: %v.", agentsMDName, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Sprintf("%s was not read: it is not a regular file (%s); only a regular file inside the workspace folder is used.", agentsMDName, st.Mode().Type())
	}
	// Bounded anyway: the file may grow between the fstat and the read.
	raw, err := io.ReadAll(io.LimitReader(f, maxAgentsMD+1))
	if err != nil {
		return "", fmt.Sprintf("%s was not read: %v.", agentsMDName, err)
	}
	if len(raw) <= maxAgentsMD {
		return string(raw), ""
	}
	cut := maxAgentsMD
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return string(raw[:cut]) + fmt.Sprintf("\n[... cut: only the first %d bytes of %s are used]", cut, agentsMDName), ""
}

// agentsMDRefusal says why opening AGENTS.md in root failed, in the user's terms.
func agentsMDRefusal(root string, err error) string {
	if dest, lerr := os.Readlink(filepath.Join(root, agentsMDName)); lerr == nil {
		return fmt.Sprintf("%s was not read: it is a link to %q, which is outside the workspace folder (or missing); only a file inside the folder is used.", agentsMDName, dest)
	}
	return fmt.Sprintf("%s was not read: %v.", agentsMDName, err)
}
