package bucket

import "testing"

func TestRedact(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{name: "a query", url: "s3://receipts?endpoint=http://10.0.0.1:9000&region=x", want: "s3://receipts"},
		{name: "no query", url: "gs://receipts/fleet", want: "gs://receipts/fleet"},
		{name: "a path", url: "/var/lib/sabline/store", want: "/var/lib/sabline/store"},
		{name: "an empty query", url: "azblob://c?", want: "azblob://c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.url); got != tt.want {
				t.Errorf("Redact(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}
