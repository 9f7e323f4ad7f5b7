package model

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := readFixtureB(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFixtureB(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", name))
}

// newRawServer is a loopback server for the few transport faults modeltest
// cannot script (a connection dropped before any answer).
func newRawServer(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
