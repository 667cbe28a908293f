package llamacpp

import "testing"

func TestBuild(t *testing.T) {}
