package train

import (
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/model/torch"
)

// ShapeOf is the network shape of game: its observation shape and action
// count.
func ShapeOf(game env.Game) torch.Shape {
	s := game.ObservationShape()
	return torch.Shape{Planes: s.Planes, Height: s.Height, Width: s.Width, Actions: game.NumActions()}
}
