#pragma once
// A journal (journal.hpp) read as the recording its run would have written:
// what `memtune merge` joins when a shard was killed before it wrote its
// recording, or when the journals of a run are all there is. The header
// names the kernel, problem, GPU, mode and space (the space itself in
// "space", beside its digest); every candidate line becomes a trial
// (its median time when it succeeded, its status and reason otherwise); the
// setup line gives the copy ceiling. A cut-off last line (a kill) is left
// out, as a resumed run would measure that candidate again.
#include <memtune/tune/journal.hpp>
#include <memtune/search/recording.hpp>

#include <filesystem>
#include <string>

namespace memtune {

// Throws JournalError naming the file, the line and the field: a journal
// without its space (written before journals kept it: merge the run's
// recording instead), a space that does not match the header's digest, a
// candidate that is not in the space or appears twice.
[[nodiscard]] search::Recording recording_from_journal(const JournalContents& journal, const std::string& origin);
[[nodiscard]] search::Recording load_journal_as_recording(const std::filesystem::path& file);

} // namespace memtune
