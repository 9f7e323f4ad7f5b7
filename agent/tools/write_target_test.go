package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/testenv"
)

// TestWriteCardNamesTheFileWrittenThroughALink is the committed-link
// attack: settings.ini -> .git/config, and `edit_file settings.ini` asked
// "Edit settings.ini?" while it gave .git/config an fsmonitor that ran at
// the user's next git status. The card names the file written and says
// it is the repository's git metadata.
func TestWriteCardNamesTheFileWrittenThroughALink(t *testing.T) {
	testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.deny = true
	gitT(t, tt.dir, "init", "-q", "-b", "main")
	if err := os.Symlink(".git/config", filepath.Join(tt.dir, "settings.ini")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(tt.dir, ".git", "config"))
	out, _, status := tt.call("edit_file", `{"path":"settings.ini","old_text":"[core]","new_text":"[core]\n\tfsmonitor = touch pwned"}`)
	if status != "denied" || len(tt.asks) != 1 {
		t.Fatalf("edit through the link = %s %q, asks %d; want one card, denied", status, out, len(tt.asks))
	}
	card := tt.asks[0]
	if !strings.Contains(card.Title, ".git/config") || !strings.Contains(card.Title, "settings.ini") {
		t.Errorf("card title %q; want it to name .git/config, the file written, and the link settings.ini", card.Title)
	}
	if !strings.Contains(card.Detail, "link") || !strings.Contains(card.Detail, filepath.Join(tt.dir, ".git", "config")) || !strings.Contains(card.Detail, "git metadata") {
		t.Errorf("card detail %q; want it to say settings.ini is a link to .git/config, the repository's git metadata", card.Detail)
	}
	if after, _ := os.ReadFile(filepath.Join(tt.dir, ".git", "config")); string(after) != string(before) {
		t.Errorf("a denied edit changed .git/config")
	}
}

// TestWriteCardSaysWhenItWritesRepositoryMetadata: a write into a
// version-control folder, a git directory under any name (a committed
// bare repository, a submodule's git folder moved away), or agentls's own
// repository config says so plainly; an ordinary file says nothing.
func TestWriteCardSaysWhenItWritesRepositoryMetadata(t *testing.T) {
	testenv.Tool(t, "git")
	tt := newToolTest(t)
	tt.deny = true
	gitT(t, tt.dir, "init", "-q", "-b", "main")
	gitT(t, tt.dir, "init", "-q", "--bare", "vendor/x.git")
	os.MkdirAll(filepath.Join(tt.dir, ".hg"), 0o755)
	cases := []struct{ path, want string }{
		{".git/hooks/pre-commit", "git metadata"},
		{"vendor/x.git/config", "git metadata"},
		{"vendor/x.git/hooks/post-update", "git metadata"},
		{"lib/.git", "git metadata"},
		{".hg/hgrc", "Mercurial metadata"},
		{".svn/entries", "Subversion metadata"},
		{".jj/repo/config.toml", "Jujutsu metadata"},
		{".agentls/config.toml", "agentls's repository config"},
		{"README.md", ""},
		{"src/git.go", ""},
	}
	for _, c := range cases {
		n := len(tt.asks)
		args, _ := jsonArgs(map[string]any{"path": c.path, "content": "x\n"})
		tt.call("write_file", args)
		if len(tt.asks) != n+1 {
			t.Errorf("write_file %s asked %d times; want one card", c.path, len(tt.asks)-n)
			continue
		}
		card := tt.asks[n]
		if c.want == "" {
			if strings.Contains(card.Detail, "metadata") || strings.Contains(card.Detail, "WARNING") {
				t.Errorf("write_file %s: card %q warns of metadata; it is an ordinary file", c.path, card.Detail)
			}
			continue
		}
		if !strings.Contains(card.Detail, "WARNING: this writes "+c.want) || !strings.Contains(card.Title, "("+c.want) {
			t.Errorf("write_file %s: card %q / %q; want it to say plainly it writes %s", c.path, card.Title, card.Detail, c.want)
		}
	}
}

// TestWriteCardInAFolderOpenedThroughALink: a workspace folder reached
// through a link of its own (a home folder on another disk) is not a link
// the write goes through, so its cards name files as before.
func TestWriteCardInAFolderOpenedThroughALink(t *testing.T) {
	tt := newToolTest(t)
	tt.deny = true
	link := filepath.Join(t.TempDir(), "proj")
	if err := os.Symlink(tt.dir, link); err != nil {
		t.Fatal(err)
	}
	tt.ws.folders = []string{link}
	tt.call("write_file", `{"path":"a.txt","content":"x\n"}`)
	if len(tt.asks) != 1 || tt.asks[0].Title != "Create "+filepath.Join(link, "a.txt")+"?" {
		t.Fatalf("card %+v; want \"Create %s?\"", tt.asks, filepath.Join(link, "a.txt"))
	}
}
