package evidence

import (
	"encoding/base64"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

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
	pgpKey     = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGPz1ZsBCADhx\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----"
	awsSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" // 40 characters, AWS's documented example
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
		{"aws key glued to _", "KEY_" + awsKey + "_OLD", "KEY_[REDACTED:aws-key]_OLD", 1},
		{"aws keys side by side", awsKey + " " + awsTempKey, "[REDACTED:aws-key] [REDACTED:aws-key]", 2},
		{"aws key running on kept", awsKey + "X", awsKey + "X", 0},
		{"pgp private key", "k=" + pgpKey + " end", "k=[REDACTED:private-key] end", 1},
		{"pgp truncated", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGP", "[REDACTED:private-key]", 1},
		{"pgp public key kept", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF", 0},
		{"pgp signature kept", "-----BEGIN PGP SIGNATURE-----\niQIz", "-----BEGIN PGP SIGNATURE-----\niQIz", 0},
		{"colon in a log line", "connect failed, password: hunter2 retrying", "connect failed, password: [REDACTED:secret-field] retrying", 1},
		{"colon without space", "db_pass:hunter2", "db_pass:[REDACTED:secret-field]", 1},
		{"colon quoted", `password: "correct horse"`, `password: "[REDACTED:secret-field]"`, 1},
		{"yaml line owns the rest", "user: bob\n  password: correct horse battery\nport: 5432", "user: bob\n  password: [REDACTED:secret-field]\nport: 5432", 1},
		{"yaml list item", "- token: abc def", "- token: [REDACTED:secret-field]", 1},
		{"http header", "X-Api-Key: k3y-v4lue\r\nAccept: */*", "X-Api-Key: [REDACTED:secret-field]\r\nAccept: */*", 1},
		{"authorization scheme kept", "Authorization: Digest username=bob", "Authorization: Digest [REDACTED:secret-field]", 1},
		{"authorization scheme alone kept", "Authorization: Bearer", "Authorization: Bearer", 0},
		{"colon boolean kept", "token: true, password: null", "token: true, password: null", 0},
		{"colon plain key kept", "user: bob host: db:5432 time 12:30", "user: bob host: db:5432 time 12:30", 0},
		{"colon inside a quoted value", `{"data":"password: hunter2"}`, `{"data":"password: [REDACTED:secret-field]"}`, 1},
		{"escaped json text", `{"body":"{\"token\":\"abc123\"}"`, `{"body":"{\"token\":\"[REDACTED:secret-field]\"}"`, 1},
		{"quoted assignment", `export PASSWORD="hunter2"`, `export PASSWORD="[REDACTED:secret-field]"`, 1},
		{"single-quoted assignment", `pw='hunter 2'`, `pw='[REDACTED:secret-field]'`, 1},
		{"assignment inside a value", `data="password=hunter2"`, `data="password=[REDACTED:secret-field]"`, 1},
		{"aws secret beside its id", "id=" + awsKey + " secret " + awsSecret, "id=[REDACTED:aws-key] secret [REDACTED:aws-secret-key]", 2},
		{"aws secret with escaped slashes", `"` + awsKey + `","` + strings.ReplaceAll(awsSecret, "/", `\/`) + `"`, `"[REDACTED:aws-key]","[REDACTED:aws-secret-key]"`, 2},
		{"aws secret alone kept", "secret " + awsSecret, "secret " + awsSecret, 0},
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
		"secret", "clientSecret", "CLIENT_SECRET", "token", "refresh_token", "accessToken", "tokens", "input_tokens",
		"apikey", "api_key", "API-KEY", "apiKey", "x.api.key", "Access Key", "accessKeyId", "private_key",
		"privateKey", "credential", "credentials", "authorization", "Proxy-Authorization", "cookie", "Set-Cookie",
		"sessionid", "session_id", "SESSION-KEY", "csrf", "csrf_token", "X-XSRF-TOKEN", "signature",
		"pwd", "PWD", "auth", "Auth", "jwt", "JWT", "pin", "otp", "ssn", "cvv", "bearer", "p_w_d", "to_ken",
		// Whole key or last word; and auth followed by key or header.
		"pass", "PASS", "pw", "PW", "db_pass", "dbPass", "DB_PASS", "userPw", "user_pw", "smtpPwd", "SMTP-PWD",
		"proxyAuth", "x-auth", "APIAuth", "card_cvv", "user_otp", "id_jwt", "pass_", "authHeader", "auth_header",
		"auth_key", "AuthKey", "oauthKey",
		// A secret word before a word that is not a descriptor; Azure keys.
		"password_hash", "session_id", "secret_key", "token_value", "aws_secret_access_key", "AccountKey", "account_key",
		"x-api-key", "api-key", "client_secret", "refreshToken", "set-cookie", "password1",
	}
	for _, k := range secret {
		if !isSecretKey(k) {
			t.Errorf("%q should be secret", k)
		}
	}
	plain := []string{
		"author", "authority", "authored_by", "ping", "spinner", "option", "otp_sent_at", "pins", "jwt_alg",
		"session", "sessions", "cacheKey", "hit", "id", "name", "bearers", "keyboard", "", "ssns",
		// Harmless: the word is inside another word, or not the last word.
		"passes", "compass", "bypass", "surpass", "passport", "passenger", "pass_count", "passThrough",
		"pwd_path", "OLDPWD", "pwdir", "authMethod", "auth_type", "authority_url", "led_pin", "gpio_pin",
		"spin", "cabin", "otpSentAt", "jwtAlg", "bypassCache",
		// A secret word that runs on into another word.
		"secretary", "secretariat", "tokenizer", "tokenize", "tokenise",
		// A descriptor after the secret word: the key describes the secret.
		"tokens_count", "token_count", "token_type", "tokenType", "password_length", "passwordLength",
		"secret_name", "credentials_path", "cookie_name", "csrf_enabled", "token_expires_at",
		"signature_valid", "token_bucket", "max_password_length", "TOKEN_TTL",
		// File names: a location's file is never a key.
		"token_store.py", "secrets.go", "password_reset.js", "api_key.rb", "credentials.json", "Secrets.YAML",
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
		{"secret as a key hides its value", `{"` + ghToken + `":1,"ok":2,"` + awsKey + `":true}`, `{"[REDACTED:github-token]":"[REDACTED]","ok":2,"[REDACTED:aws-key]":true}`, 3},
		{"secret keys stay unique", `{"` + ghToken + `":1,"x":{"` + awsKey + `":2},"` + ghPAT + `":3}`,
			`{"[REDACTED:github-token]":"[REDACTED]","x":{"[REDACTED:aws-key]":"[REDACTED]"},"[REDACTED:github-token] (2)":"[REDACTED]"}`, 6},
		{"escaped secret key", `{"\u0067hp_16C7e42F292c6912E7710c838347Ae178B4a":1}`, `{"[REDACTED:github-token]":"[REDACTED]"}`, 2},
		{"secret key and secret name", `{"token ` + ghToken + `":"v"}`, `{"token [REDACTED:github-token]":"[REDACTED]"}`, 2},
		{"new key names", `{"authHeader":"a","auth_key":"b","pass":"c","pw":"d","db_pass":"e","passes":3,"pwd_path":"/x"}`,
			`{"authHeader":"[REDACTED]","auth_key":"[REDACTED]","pass":"[REDACTED]","pw":"[REDACTED]","db_pass":"[REDACTED]","passes":3,"pwd_path":"/x"}`, 5},
		{"aws secret beside its id", `{"id":"` + awsKey + `","k":"` + awsSecret + `"}`, `{"id":"[REDACTED:aws-key]","k":"[REDACTED:aws-secret-key]"}`, 2},
		{"aws secret before its id, as a key", `{"` + awsSecret + `":[1,"` + awsKey + `"]}`, `{"[REDACTED:aws-secret-key]":"[REDACTED]"}`, 2},
		{"aws secret with an escaped id", `["\u0041KIAIOSFODNN7EXAMPLE","` + awsSecret + `"]`, `["[REDACTED:aws-key]","[REDACTED:aws-secret-key]"]`, 2},
		{"aws secret without an id kept", `{"k":"` + awsSecret + `"}`, `{"k":"` + awsSecret + `"}`, 0},
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

// TestAWSSecretRuleQuietOnOrdinaryData: even in a record that carries an
// access key id, the 40-character rule leaves hashes, base64 payloads,
// paths and identifiers alone.
func TestAWSSecretRuleQuietOnOrdinaryData(t *testing.T) {
	ordinary := []string{
		"da39a3ee5e6b4b0d3255bfef95601890afd80709",                         // SHA-1, hex
		"DA39A3EE5E6B4B0D3255BFEF95601890AFD80709",                         // SHA-1, upper-case hex
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // SHA-256
		"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",                     // SHA-256, base64
		"q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJCrze8SNFZ4kKvN7xI0VniQ", // a longer payload
		"bWFueSBieXRlcyBvZiBiYXNlNjQgd2l0aCBwYWRkaW5nIGF0IHRoZQ==",         // padded
		"/home/bob/src/github.com/acme/payments/internal/ledger/post.go",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
		"550e8400-e29b-41d4-a716-446655440000",
		"com.example.payments.LedgerPostingServiceImplementation",
		"evt_9c08a6f0d4d0_123456",
	}
	for _, v := range ordinary {
		in := awsKey + " " + v
		got, _ := RedactText(in)
		if want := "[REDACTED:aws-key] " + v; got != want {
			t.Errorf("RedactText(%q) = %q, want only the key id replaced", in, got)
		}
	}
	// The accepted cost: beside a key id, a 30-byte base64 payload (40
	// characters, no padding) cannot be told from a secret key. Of random
	// payloads of 16 to 63 bytes only those are taken, about 1 in 48.
	rnd := rand.New(rand.NewPCG(1, 2))
	taken, thirty := 0, 0
	for range 10_000 {
		b := make([]byte, 16+rnd.IntN(48))
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		enc := base64.StdEncoding.EncodeToString(b)
		if len(b) == 30 {
			thirty++
		}
		if out, _ := RedactText(awsKey + " " + enc); strings.Contains(out, "aws-secret-key") {
			taken++
			if len(b) != 30 {
				t.Fatalf("%d-byte payload %q taken for a secret key", len(b), enc)
			}
		}
	}
	t.Logf("%d of 10,000 random base64 payloads beside a key id were taken for secret keys (%d were 30 bytes long)", taken, thirty)
	if taken == 0 || taken > thirty {
		t.Errorf("%d payloads taken, %d of 30 bytes: the rule does not work as documented", taken, thirty)
	}
}

// TestColonRuleQuietOnOrdinaryText: "key: value" text without a
// secret-looking key is left alone, and the prefilter keeps the rules from
// running at all.
func TestColonRuleQuietOnOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"GET http://localhost:8080/api/items?page=2 took 12ms",
		"open config.yaml: no such file or directory",
		"user: bob\nhost: db.internal\nport: 5432\nretries: 3",
		"Content-Type: application/json\r\nAccept: */*",
		"at 12:30:05 cache miss for key cart:42",
		"compass heading: 270, bypass valve: open, tests passes: 41",
	} {
		if got, n := RedactText(s); n != 0 || got != s {
			t.Errorf("RedactText(%q) = %q (%d)", s, got, n)
		}
	}
}

// TestRedactionKeepsFileNames: a word in a file name never makes a
// location (or a message or value naming that file) lose its line, and a
// hypothesis label is never read as key: value. Value shapes still go.
func TestRedactionKeepsFileNames(t *testing.T) {
	for _, loc := range []string{
		"auth/token_store.py:12", "secrets.go:5", "password_reset.js:7", "api_key.rb:3", "lib/credentials.py:9",
		"cookie_jar.go:2:14", `C:\\src\\auth\\token:12`, "src/auth/token:12", "TokenStore.refresh:42",
		"pkg/session_key.go:1", "app/Secret.kt:8", "src/passwd:3",
	} {
		hyp, msg := "H1 token: refresh races", "in "+loc+" loop, see secrets.go:5 and auth/token:9"
		line := obj(`"hypothesisId":`+strconv.Quote(hyp), `"location":`+strconv.Quote(loc), `"message":`+strconv.Quote(msg),
			`"data":{"file":`+strconv.Quote(loc)+`,"secrets.go":5,"at":["token_store.py",12]}`, tsM)
		for _, force := range []bool{false, true} {
			r, rej := normalize([]byte(line), DefaultLimits, force, false)
			if rej != nil {
				t.Fatal(rej.Reason)
			}
			if r.Location != loc || r.HypothesisID != hyp || r.Message != msg || r.Redactions != 0 {
				t.Errorf("force=%v: %q, %q, %q (%d redactions); want the label, location and message unchanged", force, r.HypothesisID, r.Location, r.Message, r.Redactions)
			}
			if want := `{"file":` + strconv.Quote(loc) + `,"secrets.go":5,"at":["token_store.py",12]}`; string(r.Data) != want {
				t.Errorf("force=%v: data %s, want %s", force, r.Data, want)
			}
		}
	}
	// A line number is never a secret, even after a name that looks like
	// one; other values in a location are replaced as in text.
	for _, tt := range []struct{ loc, want string }{
		{"token:12", "token:12"}, {"src/Password:7:3", "src/Password:7:3"},
		{"a.go:1 password: hunter2", "a.go:1 password: [REDACTED:secret-field]"},
	} {
		r, rej := Normalize([]byte(obj(hypM, `"location":`+strconv.Quote(tt.loc), msgM, `"data":null`, tsM)), DefaultLimits)
		if rej != nil || r.Location != tt.want {
			t.Errorf("location %q stored as %q (%v), want %q", tt.loc, r.Location, rej, tt.want)
		}
	}
	// Secret-shaped values in a label or a location are still replaced.
	r, rej := Normalize([]byte(obj(`"hypothesisId":"H1 `+ghToken+`"`, `"location":"https://u:pw@h/auth/token.py:1"`, msgM, `"data":null`, tsM)), DefaultLimits)
	if rej != nil {
		t.Fatal(rej.Reason)
	}
	if r.HypothesisID != "H1 [REDACTED:github-token]" || r.Location != "https://u:[REDACTED:url-password]@h/auth/token.py:1" {
		t.Errorf("label %q, location %q", r.HypothesisID, r.Location)
	}
	for _, tt := range []struct{ in, want string }{
		{"password_reset.js:42", "password_reset.js:42"},
		{"open token.json: no such file", "open token.json: no such file"},
		{"read /etc/secrets:3 then token_store.py:12", "read /etc/secrets:3 then token_store.py:12"},
		{"token: abc", "token: [REDACTED:secret-field]"},
		{"secrets.key: abc", "secrets.key: [REDACTED:secret-field]"}, // .key is not a source file
	} {
		if got, _ := RedactText(tt.in); got != tt.want {
			t.Errorf("RedactText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRedactionSpellings: the spellings of secrets found reaching disk.
func TestRedactionSpellings(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abc123", "Authorization: Bearer [REDACTED:secret-field]"},
		{"Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED:basic-auth]"},
		{"x-api-key: k3y", "x-api-key: [REDACTED:secret-field]"},
		{"sent api-key=k3y", "sent api-key=[REDACTED:secret-field]"},
		{"client_secret=s3c", "client_secret=[REDACTED:secret-field]"},
		{`{"accessToken":"a1","refreshToken":"r1"}`, `{"accessToken":"[REDACTED:secret-field]","refreshToken":"[REDACTED:secret-field]"}`},
		{"set-cookie: sid=abc; Path=/", "set-cookie: [REDACTED:secret-field]"},
		{"request had Cookie: theme=dark; sid=abc", "request had Cookie: [REDACTED:secret-field]"},
		{"https://user:pa55@host/x", "https://user:[REDACTED:url-password]@host/x"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----", "[REDACTED:private-key]"},
		{"-----BEGIN EC PRIVATE KEY-----\nMHcC", "[REDACTED:private-key]"},
		{"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF", "[REDACTED:private-key]"},
		{"-----BEGIN DSA PRIVATE KEY-----\nMIIB", "[REDACTED:private-key]"},
		{"xoxe-1-My0xLTEyMzQ1Njc4OTAtMTIzNDU xapp-1-A0123456789-0123456789-abcdef", "[REDACTED:slack-token] [REDACTED:slack-token]"},
		{"glpat-xYz12345678901234567 glrt-abcdefghijklmnopqrst12", "[REDACTED:gitlab-token] [REDACTED:gitlab-token]"},
		{"npm_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:npm-token]"},
		{"pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY3", "[REDACTED:pypi-token]"},
		{"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "[REDACTED:huggingface-token]"},
		{"SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "[REDACTED:sendgrid-key]"},
		{"shpat_0123456789abcdef0123456789abcdef", "[REDACTED:shopify-token]"},
		{"dop_v1_" + strings.Repeat("0123456789abcdef", 4), "[REDACTED:digitalocean-token]"},
		{"AccountName=x;AccountKey=YWJjZGVm==;", "AccountName=x;AccountKey=[REDACTED:secret-field];"},
		// Python, Ruby, Go and XML spellings of a field.
		{"{'password': 'hunter2', 'user': 'bob'}", "{'password': '[REDACTED:secret-field]', 'user': 'bob'}"},
		{`{"password" => "hunter2"}`, `{"password" => "[REDACTED:secret-field]"}`},
		{`{:token=>"abc"}`, `{:token=>"[REDACTED:secret-field]"}`},
		{`password := "hunter2"`, `password := "[REDACTED:secret-field]"`},
		{"db password = hunter2", "db password = [REDACTED:secret-field]"},
		{"password=hunter2 max=500", "password=[REDACTED:secret-field] max=500"},
		{"if token == expected", "if token == expected"},
		{"<user>bob</user><password>hunter2</password>", "<user>bob</user><password>[REDACTED:secret-field]</password>"},
		{`\npw: hunter2`, `\npw: [REDACTED:secret-field]`},
		// Long command-line options.
		{"mysql --password hunter2 --user bob", "mysql --password [REDACTED:secret-field] --user bob"},
		{"run '--api-key KEY123'", "run '--api-key [REDACTED:secret-field]'"},
		{"--token-file /tmp/t --tokens 5 --no-cache x", "--token-file /tmp/t --tokens 5 --no-cache x"},
		// [name, value] pairs in text.
		{`[["Cookie", "sid=abc"], ["Accept", "*/*"]]`, `[["Cookie", "[REDACTED:secret-field]"], ["Accept", "*/*"]]`},
		{"[('X-Api-Key', 'k3y'), ('Accept', '*/*')]", "[('X-Api-Key', '[REDACTED:secret-field]'), ('Accept', '*/*')]"},
	}
	for _, tt := range tests {
		got, n := RedactText(tt.in)
		if got != tt.want {
			t.Errorf("RedactText(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
		if all, m := redactAll(tt.in); all != got || m != n {
			t.Errorf("the prefilter changed the result for %q: %q vs %q", tt.in, got, all)
		}
		if again, n2 := RedactText(got); again != got || n2 != 0 {
			t.Errorf("second pass changed %q to %q", got, again)
		}
	}
	// In data: [name, value] pairs and flat header lists (Node's rawHeaders).
	for _, tt := range []struct{ data, want string }{
		{`{"headers":[["Cookie","sid=abc"],["X-Api-Key","k"],["Accept","*/*"]]}`, `{"headers":[["Cookie","[REDACTED]"],["X-Api-Key","[REDACTED]"],["Accept","*/*"]]}`},
		{`["Authorization","x y","Cookie","sid=1","Host","h"]`, `["Authorization","[REDACTED]","Cookie","[REDACTED]","Host","h"]`},
		{`[["password",1234],["token",{"v":1}],["pin",true]]`, `[["password","[REDACTED]"],["token","[REDACTED]"],["pin",true]]`},
		{`["tokens",523]`, `["tokens",523]`},
	} {
		for _, force := range []bool{false, true} {
			r, rej := normalize([]byte(rec(tt.data)), DefaultLimits, force, false)
			if rej != nil {
				t.Fatal(rej.Reason)
			}
			if string(r.Data) != tt.want {
				t.Errorf("force=%v: %s\n = %s\nwant %s", force, tt.data, r.Data, tt.want)
			}
		}
	}
}

// TestRedactionFalsePositives: harmless keys and values stay visible. The
// decisions are documented in docs/redaction.md.
func TestRedactionFalsePositives(t *testing.T) {
	keep := []string{
		"tokens_count=42", "token_type=bearer", `{"token_type":"bearer","expires_in":3600}`, `{"tokens_count":5}`,
		"input_tokens: 523, output_tokens: 17", "counts under plurals (`input_tokens: 523`) stay", `{"max_tokens":256,"total_tokens":"300"}`,
		"passed: 12", "author: bob", "keyboard: us", "secretary: alice", "password_length: 12", "tokenizer: bpe",
		"secret_name=db-creds", "token_expires_at: 2026-12-01T10:00:00Z", "csrf_enabled=true",
		"commit da39a3ee5e6b4b0d3255bfef95601890afd80709", "id 550e8400-e29b-41d4-a716-446655440000",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"b64 aGVsbG8gd29ybGQgdGhpcyBpcyBvcmRpbmFyeSBkYXRhIGZvciBhIHRlc3Q=",
		"cursor eyJwYWdlIjoyfQ==", "password: None", "token = nil", "shell: /bin/bash", "hf_hub_download", "SG.1",
		"do_v1_upgrade", "npm_config_cache=/tmp/x", "gl-matrix", "expected Bearer 3 times", "Basic setup done",
		"token == expected", "[\"tokens\", 523]", "<author>bob</author>",
		`get("password", default)`, `["H1 token", "msg"]`,
	}
	for _, s := range keep {
		if got, n := RedactText(s); got != s || n != 0 {
			t.Errorf("RedactText(%q) = %q (%d); want it kept", s, got, n)
		}
	}
	for _, tt := range []struct{ data string }{
		{`{"tokens_count":5,"token_type":"bearer","passed":3,"author":"bob","keyboard":"us","secretary":"alice"}`},
		{`{"usage":{"input_tokens":523,"output_tokens":17,"max_tokens":1024}}`},
		{`{"sha":"da39a3ee5e6b4b0d3255bfef95601890afd80709","uuid":"550e8400-e29b-41d4-a716-446655440000"}`},
		{`{"checksum":"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855","blob":"aGVsbG8gd29ybGQ="}`},
		{`{"fields":["user","email","password_hash"],"names":["Accept","Host"]}`},
		{`["password",true,"token",null]`},
	} {
		r, rej := Normalize([]byte(rec(tt.data)), DefaultLimits)
		if rej != nil {
			t.Fatal(rej.Reason)
		}
		if string(r.Data) != tt.data || r.Redactions != 0 {
			t.Errorf("data %s became %s (%d redactions); want it kept", tt.data, r.Data, r.Redactions)
		}
	}
}

// TestRedactArgs: a command line keeps every argument but the secrets,
// including the one after a secret-looking long option.
func TestRedactArgs(t *testing.T) {
	got, n := RedactArgs([]string{"mysql", "--password", "hunter2", "--user", "bob", "--token=abc", "--api-key", "-x", "--tokens", "5", ghToken})
	want := []string{"mysql", "--password", "[REDACTED:secret-field]", "--user", "bob", "--token=[REDACTED:secret-field]", "--api-key", "-x", "--tokens", "5", "[REDACTED:github-token]"}
	if strings.Join(got, " ") != strings.Join(want, " ") || n != 3 {
		t.Errorf("RedactArgs = %q (%d), want %q (3)", got, n, want)
	}
}

// TestRedactCode: in a source line a secret-looking name hides only a
// quoted literal; a probe's own call (its label a name, too) stays whole.
func TestRedactCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`agent_log("H1 token: stale", "refresh", lambda: {"token_type": t.kind})`, `agent_log("H1 token: stale", "refresh", lambda: {"token_type": t.kind})`},
		{"token = self.refresh()", "token = self.refresh()"},
		{"def load(token: str) -> None:", "def load(token: str) -> None:"},
		{`password = "hunter2"`, `password = "[REDACTED:secret-field]"`},
		{`cfg = {"api_key": "k3y"}`, `cfg = {"api_key": "[REDACTED:secret-field]"}`},
		{"key = '" + ghToken + "'", "key = '[REDACTED:github-token]'"},
	} {
		if got, _ := RedactCode(tt.in); got != tt.want {
			t.Errorf("RedactCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
