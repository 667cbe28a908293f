package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

//go:embed web_fetch.md
var webFetchDoc string

const (
	webFetchDefaultBytes = 32 << 10
	webFetchMaxBytes     = 256 << 10
	// webFetchBodyLimit stops the download; webFetchTimeout the whole
	// fetch.
	webFetchBodyLimit = 8 << 20
	webFetchTimeout   = 30 * time.Second
	webFetchRedirects = 5
)

type webFetchTool struct{ spec }

type webFetchArgs struct {
	URL      string `json:"url"`
	MaxBytes int    `json:"max_bytes"`
}

func newWebFetch() Tool {
	return webFetchTool{spec{name: "web_fetch", doc: webFetchDoc, access: Network, schema: `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "absolute http:// or https:// URL"},
    "max_bytes": {"type": "integer", "minimum": 1, "maximum": 262144, "description": "text returned at most (default 32768); the rest goes to the vault"}
  },
  "required": ["url"],
  "additionalProperties": false
}`}}
}

// parse validates the arguments.
func (webFetchTool) parse(raw []byte) (*url.URL, int, error) {
	var a webFetchArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, 0, err
	}
	u, err := webURL(a.URL)
	if err != nil {
		return nil, 0, err
	}
	limit, err := intArg("max_bytes", a.MaxBytes, webFetchDefaultBytes, 1, webFetchMaxBytes)
	return u, limit, err
}

// webURL parses an absolute http or https URL.
func webURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New(`"url" is required`)
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %w", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q is not an absolute http:// or https:// URL", s)
	}
	return u, nil
}

// Preview returns what the user approves: "GET" and the URL.
func (t webFetchTool) Preview(_ *Env, raw []byte) (string, error) {
	u, _, err := t.parse(raw)
	if err != nil {
		return "", fmt.Errorf("web_fetch: %w", err)
	}
	return "GET " + u.String(), nil
}

// Run fetches the URL and returns its text, bounded; a longer text is
// kept whole in the vault.
func (t webFetchTool) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	u, limit, err := t.parse(raw)
	if err != nil {
		return errResult("web_fetch: %v", err), nil
	}
	res := Result{Preview: "GET " + u.String()}
	page, err := fetch(ctx, u)
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("web_fetch: %w", ctx.Err())
	case err != nil:
		res.Text, res.IsError = "web_fetch: "+err.Error(), true
		return res, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\nSTATUS: %s\nCONTENT-TYPE: %s\n", page.url, page.status, page.mediaType)
	if page.cut {
		fmt.Fprintf(&b, "(the download stopped at %d bytes; the rest of the page is not here)\n", webFetchBodyLimit)
	}
	text := page.text
	if len(text) > limit {
		note := fmt.Sprintf("(%d bytes of text; the full text could not be kept)", len(text))
		if env != nil && env.Keep != nil {
			if id, err := env.Keep("tool:web_fetch", []byte(text)); err == nil {
				note = fmt.Sprintf("(%d bytes of text, exact in the vault as %s; below are its first and last bytes)", len(text), id)
			}
		}
		b.WriteString(note + "\n")
		ht := NewHeadTail(limit-limit/4, limit/4)
		ht.Write([]byte(text))
		text = ht.String()
	}
	b.WriteString("\n" + text)
	res.Text = b.String()
	res.IsError = page.statusCode >= 400
	return res, nil
}

// page is a fetched page as text.
type page struct {
	url        string
	status     string
	statusCode int
	mediaType  string
	text       string
	cut        bool
}

// errPrivateAddress is wrapped by fetch's error for an address web_fetch
// does not connect to.
var errPrivateAddress = errors.New("web_fetch reaches only public addresses")

// dialAllowed says whether web_fetch may connect to ip: a public unicast
// address, not loopback, private (RFC 1918, fc00::/7), link-local (the
// cloud metadata service at 169.254.169.254 among them), shared
// (100.64.0.0/10), unspecified or multicast. Tests replace it to reach
// their local servers.
var dialAllowed = func(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !ip.IsLoopback() && !ip.IsLinkLocalUnicast() &&
		!netip.MustParsePrefix("100.64.0.0/10").Contains(ip)
}

// publicOnly is the dialer's check of every address it connects to, after
// name resolution, for the first request and each redirect alike.
func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", errPrivateAddress, address)
	}
	if !dialAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s is not one", errPrivateAddress, ap.Addr())
	}
	return nil
}

// fetch GETs u, following redirects to http and https URLs of the same
// host only (another host is a new fetch the user approves), connecting
// to public addresses only, and converts the body to text. A binary body
// is an error. It connects directly: a proxy would reach what the address
// check refuses.
func fetch(ctx context.Context, u *url.URL) (page, error) {
	ctx, cancel := context.WithTimeout(ctx, webFetchTimeout)
	defer cancel()
	dialer := &net.Dialer{Timeout: webFetchTimeout, Control: publicOnly}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext, ForceAttemptHTTP2: true},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > webFetchRedirects {
				return fmt.Errorf("more than %d redirects", webFetchRedirects)
			}
			if _, err := webURL(req.URL.String()); err != nil {
				return fmt.Errorf("redirected to %w", err)
			}
			if req.URL.Host != u.Host {
				return fmt.Errorf("redirected to another host, %s: fetch that URL itself to have it approved", req.URL.String())
			}
			return nil
		}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return page{}, err
	}
	req.Header.Set("User-Agent", "kws-web_fetch/1 (+https://github.com/kwsdev/kws)")
	req.Header.Set("Accept", "text/html, text/plain, text/markdown, application/json, application/xml;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return page{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, webFetchBodyLimit+1))
	if err != nil {
		return page{}, fmt.Errorf("reading %s: %w", resp.Request.URL, err)
	}
	p := page{url: resp.Request.URL.String(), status: resp.Status, statusCode: resp.StatusCode, cut: len(body) > webFetchBodyLimit}
	if p.cut {
		body = body[:webFetchBodyLimit]
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		ct = http.DetectContentType(body)
	}
	p.mediaType, _, _ = mime.ParseMediaType(ct)
	if p.mediaType == "" {
		p.mediaType = ct
	}
	switch {
	case p.mediaType == "text/html" || p.mediaType == "application/xhtml+xml":
		if p.text, err = htmlText(bytes.NewReader(body), resp.Request.URL); err != nil {
			return page{}, fmt.Errorf("reading the HTML of %s: %w", p.url, err)
		}
	case textual(p.mediaType) || isText(body):
		p.text = strings.ToValidUTF8(string(body), "\uFFFD")
	default:
		return page{}, fmt.Errorf("%s is %s (%d bytes), not text; it is not returned", p.url, p.mediaType, len(body))
	}
	return p, nil
}

// textual reports whether a media type is text the model can read.
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") ||
		mt == "application/json" || mt == "application/xml" || mt == "application/javascript" ||
		mt == "application/x-yaml" || mt == "application/yaml" || mt == "application/toml"
}

// isText reports whether body, of an unknown or generic type, is UTF-8
// text without NUL bytes.
func isText(body []byte) bool {
	head := body[:min(len(body), sniffLen)]
	return !isBinary(head) && utf8.Valid(body)
}
