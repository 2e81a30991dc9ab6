//go:build xla

package models

import (
	"fmt"
	"path/filepath"

	"github.com/gomlx/compute"
	"github.com/gomlx/go-xla/compute/xla" // registers the "xla" backend
)

func init() {
	// Only the plugin file named on the command line is loaded: no
	// download (the auto-installer is not linked either).
	xla.EnableAutoInstall(false)
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
