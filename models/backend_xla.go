//go:build xla

package models

import (
	"fmt"
	"path/filepath"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/go-xla/compute/xla" // registers the "xla" backend
)

func init() {
	xlaBackend = func(pluginPath string) (compute.Backend, error) {
		if !filepath.IsAbs(pluginPath) {
			return nil, fmt.Errorf("backend xla: plugin path %q must be absolute", pluginPath)
		}
		b, err := compute.NewWithConfig("xla:" + pluginPath)
		if err != nil {
			return nil, fmt.Errorf("backend xla:%s: %w", pluginPath, err)
		}
		return b, nil
	}
}
