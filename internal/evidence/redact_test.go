package evidence

import "testing"

// Realistic-looking but fake secrets.
const (
	awsKey     = "AKIAIOSFODNN7EXAMPLE"
	awsTempKey = "ASIAY34FZKBOKMUTVV7A"
	ghToken    = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	ghPAT      = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	slackToken = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	stripeLive = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	stripeRest = "rk_live_51H8abcdEFGHijklMNOP"
	stripeTest = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
	googleKey  = "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe"
	openaiKey  = "sk-proj-abc123DEF456ghi789JKL012"
	jwtToken   = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pemKey     = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\nabc==\n-----END RSA PRIVATE KEY-----"
)

func TestRedactText(t *testing.T) {
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"plain text untouched", "Cache lookup completed for cart:42", "Cache lookup completed for cart:42", 0},
		{"empty", "", "", 0},
		{"aws access key", "key " + awsKey + " used", "key [REDACTED:aws-key] used", 1},
		{"aws temporary key", awsTempKey, "[REDACTED:aws-key]", 1},
		{"aws prefix too short", "AKIA1234", "AKIA1234", 0},
		{"github classic", "token=" + ghToken, "token=[REDACTED:github-token]", 1},
		{"github kinds", "gho_abcdefghijklmnopqrstuvwxyz0123456789 ghu_abcdefghijklmnopqrstuvwxyz0123456789 ghs_abcdefghijklmnopqrstuvwxyz0123456789 ghr_abcdefghijklmnopqrstuvwxyz0123456789",
			"[REDACTED:github-token] [REDACTED:github-token] [REDACTED:github-token] [REDACTED:github-token]", 4},
		{"github fine-grained", "pat " + ghPAT, "pat [REDACTED:github-token]", 1},
		{"slack", "slack " + slackToken, "slack [REDACTED:slack-token]", 1},
		{"slack kinds", "xoxa-1234567890ab xoxp-1234567890ab xoxr-1234567890ab xoxs-1234567890ab",
			"[REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token]", 4},
		{"stripe live", stripeLive, "[REDACTED:stripe-key]", 1},
		{"stripe restricted", stripeRest, "[REDACTED:stripe-key]", 1},
		{"stripe test", "using " + stripeTest + ".", "using [REDACTED:stripe-key].", 1},
		{"google api key", "k=" + googleKey, "k=[REDACTED:google-api-key]", 1},
		{"openai key", "OPENAI " + openaiKey, "OPENAI [REDACTED:openai-key]", 1},
		{"openai lookalike word", "sk-learn-compatibility-check", "sk-learn-compatibility-check", 0},
		{"jwt", "got " + jwtToken + " back", "got [REDACTED:jwt] back", 1},
		{"jwt without signature", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", "[REDACTED:jwt]", 1},
		{"eyJ alone", "eyJ is how JSON starts in base64", "eyJ is how JSON starts in base64", 0},
		{"pem private key", "key:\n" + pemKey + "\ndone", "key:\n[REDACTED:private-key]\ndone", 1},
		{"pem truncated", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "[REDACTED:private-key]", 1},
		{"pem public key kept", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN", 0},
		{"bearer", "Authorization: Bearer abc123def456ghi", "Authorization: Bearer [REDACTED:bearer]", 1},
		{"bearer lowercase", "bearer abcdefghijklmnopqrstuvwxyz", "bearer [REDACTED:bearer]", 1},
		{"bearer jwt counted once", "Bearer " + jwtToken, "Bearer [REDACTED:jwt]", 1},
		{"bearer prose kept", "uses Bearer authentication", "uses Bearer authentication", 0},
		{"basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic-auth]", 1},
		{"basic prose kept", "Basic setup done", "Basic setup done", 0},
		{"url credentials", "dial postgres://bob:s3cret@db.internal:5432/app", "dial postgres://bob:[REDACTED:url-password]@db.internal:5432/app", 1},
		{"url password only", "redis://:hunter2@cache:6379", "redis://:[REDACTED:url-password]@cache:6379", 1},
		{"url @ in password", "https://u:p@ss@host/x", "https://u:[REDACTED:url-password]@host/x", 1},
		{"url without password kept", "ssh://git@github.com/x https://example.com/@user", "ssh://git@github.com/x https://example.com/@user", 0},
		{"json secret field", `body {"user":"bob","password":"hunter2","n":1}`, `body {"user":"bob","password":"[REDACTED:secret-field]","n":1}`, 1},
		{"json secret number", `{"pin": 1234}`, `{"pin": [REDACTED:secret-field]}`, 1},
		{"json author kept", `{"author":"bob"}`, `{"author":"bob"}`, 0},
		{"query secret", "GET /cb?code=1&access_token=abc123&x=1", "GET /cb?code=1&access_token=[REDACTED:secret-field]&x=1", 1},
		{"query plain kept", "GET /items?page=2&sort=asc", "GET /items?page=2&sort=asc", 0},
		{"several", awsKey + " and " + jwtToken + " and " + ghToken, "[REDACTED:aws-key] and [REDACTED:jwt] and [REDACTED:github-token]", 3},
		{"inside a word kept", "XAKIAIOSFODNN7EXAMPLE", "XAKIAIOSFODNN7EXAMPLE", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := RedactText(tt.in)
			if got != tt.want || n != tt.n {
				t.Errorf("RedactText(%q) = %q, %d\nwant %q, %d", tt.in, got, n, tt.want, tt.n)
			}
			if tt.n > 0 && !mightContainSecret(tt.in) {
				t.Errorf("prefilter misses %q", tt.in)
			}
			if again, n2 := RedactText(got); again != got || n2 != 0 {
				t.Errorf("second pass changed %q to %q (%d)", got, again, n2)
			}
		})
	}
}

func TestIsSecretKey(t *testing.T) {
	secret := []string{
		"password", "Password", "PASSWORD", "user_password", "db-password", "passwd", "passphrase",
		"secret", "clientSecret", "CLIENT_SECRET", "token", "refresh_token", "accessToken", "tokenizer",
		"apikey", "api_key", "API-KEY", "apiKey", "x.api.key", "Access Key", "accessKeyId", "private_key",
		"privateKey", "credential", "credentials", "authorization", "Proxy-Authorization", "cookie", "Set-Cookie",
		"sessionid", "session_id", "SESSION-KEY", "csrf", "csrf_token", "X-XSRF-TOKEN", "signature",
		"pwd", "PWD", "auth", "Auth", "jwt", "JWT", "pin", "otp", "ssn", "cvv", "bearer", "p_w_d", "to_ken",
	}
	for _, k := range secret {
		if !isSecretKey(k) {
			t.Errorf("%q should be secret", k)
		}
	}
	plain := []string{
		"author", "authority", "authored_by", "ping", "spinner", "option", "otp_sent_at", "pins", "jwt_alg",
		"session", "sessions", "cacheKey", "hit", "id", "name", "bearers", "keyboard", "", "ssns",
	}
	for _, k := range plain {
		if isSecretKey(k) {
			t.Errorf("%q should not be secret", k)
		}
	}
}

func TestNormalizeRedactsData(t *testing.T) {
	tests := []struct {
		name, data, want string
		n                int
	}{
		{"plain", `{"user":"bob","n":1}`, `{"user":"bob","n":1}`, 0},
		{"string value", `{"password":"hunter2"}`, `{"password":"[REDACTED]"}`, 1},
		{"number value", `{"pin":1234,"cvv":123}`, `{"pin":"[REDACTED]","cvv":"[REDACTED]"}`, 2},
		{"object value", `{"credentials":{"user":"bob","pass":"x"},"ok":1}`, `{"credentials":"[REDACTED]","ok":1}`, 1},
		{"array value", `{"cookies":["a=1","b=2"]}`, `{"cookies":"[REDACTED]"}`, 1},
		{"key forms", `{"api_key":"a","API-KEY":"b","apiKey":"c","x.api.key":"d","Access Key":"e","clientSecret":"f"}`,
			`{"api_key":"[REDACTED]","API-KEY":"[REDACTED]","apiKey":"[REDACTED]","x.api.key":"[REDACTED]","Access Key":"[REDACTED]","clientSecret":"[REDACTED]"}`, 6},
		{"nested object", `{"a":{"b":{"refresh_token":"r"}}}`, `{"a":{"b":{"refresh_token":"[REDACTED]"}}}`, 1},
		{"objects in arrays", `[{"session_id":"s"},[{"Authorization":"x"}],{"ok":true}]`, `[{"session_id":"[REDACTED]"},[{"Authorization":"[REDACTED]"}],{"ok":true}]`, 2},
		{"author kept", `{"author":"bob","authority":"x"}`, `{"author":"bob","authority":"x"}`, 0},
		{"booleans and null kept", `{"hasToken":true,"tokenExpired":false,"password":null}`, `{"hasToken":true,"tokenExpired":false,"password":null}`, 0},
		{"escaped key", `{"p\u0061ssword":"x"}`, `{"p\u0061ssword":"[REDACTED]"}`, 1},
		{"value shape", `{"note":"use ` + awsKey + ` here"}`, `{"note":"use [REDACTED:aws-key] here"}`, 1},
		{"value shape deep in array", `[[["` + jwtToken + `"]]]`, `[[["[REDACTED:jwt]"]]]`, 1},
		{"escaped value shape", `{"t":"\u0067hp_16C7e42F292c6912E7710c838347Ae178B4a"}`, `{"t":"[REDACTED:github-token]"}`, 1},
		{"escaped url", `{"db":"postgres:\/\/bob:pw@db\/app"}`, `{"db":"postgres://bob:[REDACTED:url-password]@db/app"}`, 1},
		{"pem with newlines", `{"k":"-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"}`, `{"k":"[REDACTED:private-key]"}`, 1},
		{"json in a string", `{"body":"{\"password\":\"hunter2\"}"}`, `{"body":"{\"password\":\"[REDACTED:secret-field]\"}"}`, 1},
		{"key beats value", `{"token":"` + ghToken + `"}`, `{"token":"[REDACTED]"}`, 1},
		{"secret under plain key in top string", `"Bearer abc123def456ghi"`, `"Bearer [REDACTED:bearer]"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, force := range []bool{false, true} {
				r, rej := normalize([]byte(rec(tt.data)), DefaultLimits, force, false)
				if rej != nil {
					t.Fatal(rej.Reason)
				}
				if string(r.Data) != tt.want || r.Redactions != tt.n {
					t.Errorf("force=%v: data = %s (%d redactions)\nwant %s (%d)", force, r.Data, r.Redactions, tt.want, tt.n)
				}
			}
		})
	}
}

func TestNormalizeRedactsText(t *testing.T) {
	line := obj(`"hypothesisId":"H1"`, `"location":"https://u:pw@host/x.js:1"`,
		`"message":"login with Bearer abc123def456ghi and `+awsKey+`"`,
		`"data":{"password":"x","ok":"`+jwtToken+`"}`, tsM)
	r, rej := Normalize([]byte(line), DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	if r.Message != "login with Bearer [REDACTED:bearer] and [REDACTED:aws-key]" {
		t.Errorf("message = %q", r.Message)
	}
	if r.Location != "https://u:[REDACTED:url-password]@host/x.js:1" {
		t.Errorf("location = %q", r.Location)
	}
	if string(r.Data) != `{"password":"[REDACTED]","ok":"[REDACTED:jwt]"}` {
		t.Errorf("data = %s", r.Data)
	}
	if r.Redactions != 5 {
		t.Errorf("redactions = %d, want 5", r.Redactions)
	}
}

func TestPrefilterQuietOnOrdinaryRecords(t *testing.T) {
	for _, s := range []string{
		typicalRecord,
		rec(`{"user":{"id":7,"name":"bob","roles":["admin"]},"items":[1,2,3],"elapsedMs":12.5}`),
		`{"hypothesisId":"H3","location":"internal/cache/lru.go:120","message":"evicted entry","data":{"key":"cart:42","size":1024,"age_ms":5000},"timestamp":1784313728231}`,
	} {
		if mightContainSecret(s) {
			t.Errorf("prefilter fires on %s", s)
		}
	}
}

func TestPrefilterSeesThroughEscapesAndSeparators(t *testing.T) {
	for _, s := range []string{
		`"p\u0061ssword"`, `https:\/\/u:p@h`, `"pass_word"`, `"to-ken"`, `"API.KEY"`, "Bearer x", "basic x",
	} {
		if !mightContainSecret(s) {
			t.Errorf("prefilter misses %s", s)
		}
	}
	// "://" followed later by '@', including as the last byte.
	if !mightContainSecret("a://b:c@") {
		t.Error(`prefilter misses a trailing '@' after "://"`)
	}
}
