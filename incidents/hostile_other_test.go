//go:build !unix

package incidents

import "testing"

func makeFIFO(t *testing.T, dir string) (string, bool) { return "", false }
