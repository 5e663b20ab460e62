package evidence

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func BenchmarkScratchPrefilter(b *testing.B) {
	line := []byte(typicalRecord)
	for b.Loop() {
		if mightContainSecret(line) {
			b.Fatal("hit")
		}
	}
}

func BenchmarkScratchIsValid(b *testing.B) {
	line := []byte(typicalRecord)
	for b.Loop() {
		if !jsontext.Value(line).IsValid() {
			b.Fatal("hit")
		}
	}
}

func BenchmarkScratchIsValidDup(b *testing.B) {
	line := []byte(typicalRecord)
	for b.Loop() {
		if !jsontext.Value(line).IsValid(jsontext.AllowDuplicateNames(true)) {
			b.Fatal("hit")
		}
	}
}

func BenchmarkScratchWalk(b *testing.B) {
	line := []byte(typicalRecord)
	for b.Loop() {
		p := parser{src: line, lim: DefaultLimits}
		p.record()
	}
}
