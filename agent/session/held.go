package session

import (
	"io/fs"
	"os"
	"path/filepath"
)

// heldFile is a file appended to many times in a turn (the session file,
// index.log, the transcript), opened at its first append and kept open
// until close, instead of opened and closed for every message. Before each
// use a stat checks that its path still names the file held: a file
// replaced meanwhile (a repair or a rebuild renamed a new one over it, a
// listing folded and removed index.log, another process did either) is
// closed and its path opened afresh, so no append lands in a file nobody
// reads any more. The zero value with a path and flags is ready.
type heldFile struct {
	path string
	flag int // os.OpenFile's, O_APPEND among them
	f    *os.File
	fi   fs.FileInfo // f's, as opened
}

// file is the held file, opened (with its folder) when it is not yet, or
// when its path now names another file or none.
func (h *heldFile) file() (*os.File, error) {
	if h.f != nil {
		if st, err := os.Stat(h.path); err == nil && os.SameFile(st, h.fi) {
			return h.f, nil
		}
		h.close()
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(h.path, h.flag, 0o600)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	h.f, h.fi = f, fi
	return f, nil
}

// close closes the held file, if one is; the next use opens it again.
func (h *heldFile) close() error {
	if h.f == nil {
		return nil
	}
	err := h.f.Close()
	h.f, h.fi = nil, nil
	return err
}
