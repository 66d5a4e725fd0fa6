// A stored game (build --index-games) read again as the build read it:
// through the build's own visitor, so that what merge and retract take out
// of a book is what the build put in, fingerprint included.
#pragma once

#include "book/store/game_index.h"
#include "builder/build_visitor.h"
#include "builder/game_filter.h"

namespace gb::builder {

// Replays g through a BuildVisitor with options (its tags, its start, its
// moves, its [Result] tag) into out; false when the game does not replay (a
// damaged record: a move that is not legal) or the options leave it out.
bool replay(const store::StoredGame& g, const BuildOptions& options, PartGames& out);

}  // namespace gb::builder
