package service

import (
	"bytes"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-debug-mode/debug-mode/internal/otlp"
)

// secretCase is one way a secret can arrive. Each needle is a distinctive
// part of the secret (free of characters JSON may escape) that must not be
// found in any file of the session once the record is taken in.
type secretCase struct {
	name    string
	line    string
	needles []string
	stored  bool // the record is valid and stored (with the secret redacted)
	held    bool // a valid control record (held-back count, logpoint report): neither stored nor rejected
}

// Fake secrets, each with a marker of its own.
const (
	corpusAWSID     = "AKIAIOSFODNN7CORPUS1"
	corpusAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCORPUSKEY1" // 40 characters
	corpusPGP       = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGPgpSecretBody0123456789abcdef\n=Xy12\n-----END PGP PRIVATE KEY BLOCK-----`
	corpusPEM       = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowPemSecretBody0123456789\n-----END RSA PRIVATE KEY-----`
	corpusJWT       = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjb3JwdXMifQ.JwtCorpusSignature0123456789abc"
)

var secretCorpus = []secretCase{
	// What reached disk in the attack.
	{name: "secret as a data key", stored: true,
		line: withData(`{"ghp_KeyAsName0123456789abcdefABCDEF":1,"nested":{"ghp_NestedKeyName0123456789abcdefAB":{"x":1}}}`), needles: []string{"KeyAsName0123456789", "NestedKeyName0123456789"}},
	{name: "secret as an unknown field name", stored: true,
		line: rec("ghp_UnknownField0123456789abcdefGHIJ", `1`), needles: []string{"UnknownField0123456789"}},
	{name: "PGP private key block", stored: true,
		line: withData(`"` + corpusPGP + `"`), needles: []string{"GPgpSecretBody0123456789"}},
	{name: "password: value in a log line", stored: true,
		line: withData(`{"log":"db connect password: ColonSecret0123 ok"}`), needles: []string{"ColonSecret0123"}},
	{name: "YAML password line", stored: true,
		line: withData(`"user: bob\npassword: correct horse YamlSecretPhrase\nport: 5432"`), needles: []string{"YamlSecretPhrase"}},
	{name: "AWS key id glued to _", stored: true,
		line: withData(`"KEY_AKIAGLUEDUNDERSCORE1"`), needles: []string{"AKIAGLUEDUNDERSCORE1"}},
	{name: "key names authHeader, auth_key, pass, pw, db_pass", stored: true,
		line:    withData(`{"authHeader":"AuthHeaderValue42","auth_key":"AuthKeyValue42","pass":"PassValue42","pw":"PwValue42","db_pass":"DbPassValue42"}`),
		needles: []string{"AuthHeaderValue42", "AuthKeyValue42", "PassValue42", "PwValue42", "DbPassValue42"}},
	{name: "AWS secret key beside its id", stored: true,
		line: withData(`{"id":"` + corpusAWSID + `","k":"` + corpusAWSSecret + `"}`), needles: []string{"bPxRfiCYCORPUSKEY1", "IOSFODNN7CORPUS1"}},
	{name: "quoted PASSWORD=", stored: true,
		line: withData(`"export PASSWORD=\"QuotedEqSecret\""`), needles: []string{"QuotedEqSecret"}},
	{name: "password: in the message", stored: true,
		line: rec("message", `"login password: MsgColonSecret1"`), needles: []string{"MsgColonSecret1"}},

	// Shapes redacted before, kept here so the sweep covers every kind.
	{name: "value shapes", stored: true,
		line: withData(`["AKIAIOSFODNN7VALUES1","ghp_GithubValue0123456789abcdefABCD","xoxb-123456789012-SlackValue0123","sk_live_StripeValue0123456","AIzaSyGoogleValue0123456789abcdefghijkl","sk-proj-OpenaiValue0123456789","` + corpusJWT + `","` + corpusPEM + `","Bearer BearerValue0123456789","Basic dXNlcjpCYXNpY1ZhbHVlMDEyMw==","postgres://bob:UrlPassValue0@db/app","{\"password\":\"JsonTextValue0\"}","GET /cb?access_token=QueryValue0123"]`),
		needles: []string{"IOSFODNN7VALUES1", "GithubValue0123", "SlackValue0123", "StripeValue0123", "GoogleValue0123", "OpenaiValue0123",
			"JwtCorpusSignature0123", "MIIEowPemSecretBody", "BearerValue0123", "dXNlcjpCYXNpY1ZhbHVlMDEyMw", "UrlPassValue0", "JsonTextValue0", "QueryValue0123"}},
	{name: "secret-looking keys", stored: true,
		line:    withData(`{"password":"PasswordValue0","api_key":"ApiKeyValue0","Authorization":"Basic AuthorizationValue0","cookie":"sid=CookieValue0","pin":97531864}`),
		needles: []string{"PasswordValue0", "ApiKeyValue0", "AuthorizationValue0", "CookieValue0", "97531864"}},

	// The second attack's spellings (issue 11 follow-up, M2).
	{name: "more token shapes", stored: true,
		line:    withData(`["glpat-GitlabValue0123456789ab","npm_NpmValue0123456789abcdefghijklmnopqrst","xoxe-1-SlackRefresh0123456","xapp-1-A0123-SlackApp0123456","hf_HuggingValue0123456789abcdefghijklm","pypi-AgEIcHlwaS5vcmcPypiValue0123456789abcdefghijklmnopqrstuvwxyz0123"]`),
		needles: []string{"GitlabValue0123", "NpmValue0123", "SlackRefresh0123", "SlackApp0123", "HuggingValue0123", "PypiValue0123"}},
	{name: "header lists and pairs", stored: true,
		line:    withData(`{"headers":[["Cookie","sid=PairCookie01"],["X-Api-Key","PairApiKey01"]],"rawHeaders":["Authorization","Token RawAuth01","cookie","RawCookie01"]}`),
		needles: []string{"PairCookie01", "PairApiKey01", "RawAuth01", "RawCookie01"}},
	{name: "Python, Ruby, Go, XML and option spellings in text", stored: true,
		line:    rec("message", `"{'password': 'PyDict01'} {\"token\" => \"RubyHash01\"} secret := \"GoDecl01\" <password>XmlElem01</password> --api-key OptValue01 Cookie: a=1; sid=CookieTail01"`),
		needles: []string{"PyDict01", "RubyHash01", "GoDecl01", "XmlElem01", "OptValue01", "CookieTail01"}},
	{name: "camelCase keys, client_secret, set-cookie, URL userinfo", stored: true,
		line:    withData(`{"accessToken":"CamelAccess01","refreshToken":"CamelRefresh01","client_secret":"ClientSecret01","set-cookie":"SetCookie01","x-api-key":"XApiKey01","u":"https://bob:UrlUser01@h/x"}`),
		needles: []string{"CamelAccess01", "CamelRefresh01", "ClientSecret01", "SetCookie01", "XApiKey01", "UrlUser01"}},

	// Held-back records keep their labels in heldback.json.
	{name: "held-back record", held: true,
		line:    `{"agentDebugHeldBack":{"hypothesisId":"ghp_HeldBackLabel0123456789abcdefQRS","location":"a.go:1 password: HeldBackLocation1","process":"1-2 token=HeldBackProcess1","count":3,"cap":2}}`,
		needles: []string{"HeldBackLabel0123456789", "HeldBackLocation1", "HeldBackProcess1"}},
	{name: "refused: held-back record with a secret member",
		line: `{"agentDebugHeldBack":{"hypothesisId":"H1","location":"a.go:1","process":"1","count":3,"cap":2,"ghp_HeldBackMember0123456789abcdefQR":1}}`, needles: []string{"HeldBackMember0123456789"}},

	// Logpoint reports keep their reason and process in logpointreports.json.
	{name: "logpoint report", held: true,
		line:    `{"agentDebugLogpoint":{"id":"lp-1","state":"failed","reason":"line 3 is blank password: LogpointReason1","process":"1-2 token=LogpointProcess1"}}`,
		needles: []string{"LogpointReason1", "LogpointProcess1"}},
	{name: "refused: logpoint report with a secret member",
		line: `{"agentDebugLogpoint":{"id":"lp-1","state":"installed","process":"1","ghp_LogpointMember0123456789abcdefQR":1}}`, needles: []string{"LogpointMember0123456789"}},

	// Refused records: the reason and the excerpt are stored.
	{name: "refused: secret key in broken JSON",
		line: `{"hypothesisId":"H1","data":{"ghp_RejectedKey0123456789abcdefXYZ":1}`, needles: []string{"RejectedKey0123456789"}},
	{name: "refused: duplicate secret name in data",
		line: withData(`{"ghp_DuplicateKey0123456789abcdefQRS":1,"ghp_DuplicateKey0123456789abcdefQRS":2}`), needles: []string{"DuplicateKey0123456789"}},
	{name: "refused: duplicate secret field",
		line: `{"ghp_TopDuplicate0123456789abcdefQRS":1,"ghp_TopDuplicate0123456789abcdefQRS":2}`, needles: []string{"TopDuplicate0123456789"}},
	{name: "refused: only a secret field",
		line: `{"ghp_OnlyField0123456789abcdefQRSTU":1}`, needles: []string{"OnlyField0123456789"}},
	{name: "refused: password: in the excerpt",
		line: `{"hypothesisId":"H1","data":"password: ExcerptColonSecret"`, needles: []string{"ExcerptColonSecret"}},
	{name: "refused: JSON text inside a string",
		line: `{"hypothesisId":"H1","data":"{\"token\":\"EmbeddedJsonSecret\"}"`, needles: []string{"EmbeddedJsonSecret"}},
	{name: "refused: PGP block",
		line: `{"data":"` + corpusPGP, needles: []string{"GPgpSecretBody0123456789"}},
	{name: "refused: AWS secret key beside its id, escaped slashes",
		line: `{"id":"AKIAIOSFODNN7REJECT1","k":"wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYESCAPEKEY1"`, needles: []string{"IOSFODNN7REJECT1", "bPxRfiCYESCAPEKEY1"}},
	{name: "refused: oversize record",
		line: rec("message", `"password: OversizeSecret1"`, "data", `"`+strings.Repeat("z", 70<<10)+`"`), needles: []string{"OversizeSecret1"}},
}

// TestNoSecretReachesDisk sends every secret case over both transports and
// then reads every file of the session directory: events, diagnostics, the
// checkpoint and the append path itself. None may hold any of the secrets.
func TestNoSecretReachesDisk(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	var lines []string
	stored, rejected := 0, 0
	for _, c := range secretCorpus {
		lines = append(lines, c.line)
		switch {
		case c.stored:
			stored++
		case !c.held:
			rejected++
		}
	}
	body := ndjson(lines...)
	for _, c := range secretCorpus {
		for _, n := range c.needles {
			if !strings.Contains(c.line, n) {
				t.Fatalf("case %q: needle %q is not in its own record", c.name, n)
			}
		}
	}
	if code, res := ingest(t, info.IngestURL, "application/x-ndjson", []byte(body)); code != 200 || res.Accepted != stored {
		t.Fatalf("HTTP ingest: %d %+v, want every valid case (%d) accepted", code, res, stored)
	}
	appendSpool(t, info.AppendPath, body)
	st := ts.status(t, info.SessionID)
	if st.Events != int64(2*stored) || st.Rejected != int64(2*rejected) {
		t.Fatalf("%d events, %d rejected; want %d and %d", st.Events, st.Rejected, 2*stored, 2*rejected)
	}

	dir := filepath.Join(ts.Root.Path(), "sessions", info.SessionID)
	walked := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		walked[d.Name()] = true
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, c := range secretCorpus {
			for _, n := range c.needles {
				if i := bytes.Index(b, []byte(n)); i >= 0 {
					t.Errorf("%s holds the secret of case %q: …%s…", filepath.Base(path), c.name, b[max(0, i-60):min(len(b), i+len(n)+20)])
				}
			}
		}
		return nil
	})
	for _, f := range []string{"events.ndjson", "diagnostics.ndjson", "incoming.ndjson", "heldback.json", "logpointreports.json", "spool.json"} {
		if !walked[f] {
			t.Errorf("%s was not there to read (walked %v, %v)", f, walked, err)
		}
	}
}

// TestNoSecretReachesDiskOverOTLP: the same sweep for OTLP records, with
// secrets in the body (text and structured), in attributes, and nested in
// array and map attributes, over both encodings.
func TestNoSecretReachesDiskOverOTLP(t *testing.T) {
	ts := startServer(t, Config{})
	info := ts.create(t)
	needles := []string{"OtlpBody01", "OtlpAttr01", "OtlpNested01", "OtlpKv01", "OtlpGitlab0123", "OtlpCookie01", "OtlpHeader01"}
	for _, enc := range []otlp.Encoding{otlp.Protobuf, otlp.JSON} {
		ld := otlpLogs("login with Authorization: Bearer OtlpBody01xyz", "structured")
		lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
		a := lrs.At(0).Attributes()
		a.PutStr("http.request.header.authorization", "Basic OtlpAttr01")
		arr := a.PutEmptySlice("tags")
		arr.AppendEmpty().SetStr("glpat-OtlpGitlab0123456789ab")
		kv := arr.AppendEmpty().SetEmptyMap()
		kv.PutStr("password", "OtlpNested01")
		pair := arr.AppendEmpty().SetEmptySlice()
		pair.AppendEmpty().SetStr("Cookie")
		pair.AppendEmpty().SetStr("sid=OtlpCookie01")
		body := lrs.At(1).Body().SetEmptyMap()
		body.PutStr("client_secret", "OtlpKv01")
		body.PutStr("msg", "x-api-key: OtlpHeader01")
		if code, _, ans := otlpPost(t, info.OTLPEndpoint+"/v1/logs", enc, "", encodeLogs(t, ld, enc)); code != http.StatusOK {
			t.Fatalf("%d %q", code, ans)
		}
	}
	if st := ts.status(t, info.SessionID); st.Events != 4 || st.RedactedEvents != 4 {
		t.Fatalf("%d events, %d redacted; want 4 and 4", st.Events, st.RedactedEvents)
	}
	dir := filepath.Join(ts.Root.Path(), "sessions", info.SessionID)
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, n := range needles {
			if i := bytes.Index(b, []byte(n)); i >= 0 {
				t.Errorf("%s holds %s: …%s…", filepath.Base(path), n, b[max(0, i-60):min(len(b), i+len(n)+20)])
			}
		}
		return nil
	})
}
