package config

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckClientMetadataURL accepts the URL of an OAuth Client ID Metadata
// Document, which agentls presents as its client_id: https (the
// authorization server trusts whatever the document at that URL says
// about the client, so it must come from the host the URL names), a path
// to the document, no dot segments, no fragment, no credentials.
func CheckClientMetadataURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("oauth_client_metadata_url %q is not a URL: %v", raw, err)
	}
	const want = `expected the https URL of the JSON document, like "https://example.com/agentls/client.json"`
	switch {
	case u.Scheme != "https":
		return fmt.Errorf("oauth_client_metadata_url %q: the client ID metadata document must be served over https; %s", raw, want)
	case u.Host == "":
		return fmt.Errorf("oauth_client_metadata_url %q has no host; %s", raw, want)
	case u.User != nil:
		return fmt.Errorf("oauth_client_metadata_url %q carries credentials, which a client_id must not; %s", u.Redacted(), want)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("oauth_client_metadata_url %q has a fragment (#...), which a client_id must not; %s", raw, want)
	case u.Path == "" || u.Path == "/":
		return fmt.Errorf("oauth_client_metadata_url %q names no document (it has no path); %s", raw, want)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("oauth_client_metadata_url %q has a %q path segment, which a client_id must not; %s", raw, seg, want)
		}
	}
	return nil
}

// clientMetadataURL reads an oauth_client_metadata_url value ("" is
// allowed: no document, dynamic registration).
func clientMetadataURL(v any) (string, error) {
	s, err := asString(v)
	if err != nil || s == "" {
		return s, err
	}
	return s, CheckClientMetadataURL(s)
}
