package protocol

import "github.com/zerokit/zerokit/env"

// Codec translates between a game's actions and a referee's text forms: the
// part of the protocol that is specific to one game and one referee. The
// server is otherwise game-independent. Games implement it (env.Refereed:
// wyb.Codec is the Watch Your Back! course referee's).
type Codec = env.RefereeCodec
