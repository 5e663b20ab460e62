package evidence

import "testing"

// typicalRecord is a ~200-byte probe event with a small nested data object.
const typicalRecord = `{"hypothesisId":"H1","location":"src/cache.ts:84","message":"Cache lookup completed","data":{"cacheKey":"cart:42","hit":false,"size":3,"entry":{"age":12,"tags":["a","b"]}},"timestamp":1784313728231}`

// secretRecord trips the prefilter and several key and value rules.
const secretRecord = `{"hypothesisId":"H2","location":"src/auth.ts:17","message":"Login with Bearer abcdef0123456789xyz","data":{"user":"bob","password":"hunter2","headers":{"authorization":"Basic Ym9iOmh1bnRlcjI="},"db":"postgres://bob:s3cret@db:5432/app","id":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"},"timestamp":1784313728231}`

func BenchmarkNormalize(b *testing.B) {
	for _, bc := range []struct{ name, line string }{
		{"typical", typicalRecord},
		{"secrets", secretRecord},
	} {
		b.Run(bc.name, func(b *testing.B) {
			line := []byte(bc.line)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, rej := Normalize(line, DefaultLimits); rej != nil {
					b.Fatal(rej.Reason)
				}
			}
		})
	}
}

func BenchmarkAppendStored(b *testing.B) {
	r, rej := Normalize([]byte(typicalRecord), DefaultLimits)
	if rej != nil {
		b.Fatal(rej.Reason)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendStored(buf[:0], "evt_00000001", 1, 1784313728237, &r)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkRedactText(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"plain", "Cache lookup completed for cart:42 after 3 retries"},
		{"secret", "retrying with Bearer abc123def456ghi against postgres://bob:s3cret@db:5432/app"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				RedactText(bc.text)
			}
		})
	}
}
