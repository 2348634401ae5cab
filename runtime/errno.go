package runtime

import "strings"

func layerList(layers []string) string {
	return strings.Join(layers, ", ")
}
