# fish completion for feeddiff(1): commands, options and their values, the archive's source
# names (from its feeddiff.toml) and commit ids. tests/cli/install_test.cc checks that every
# command and option of `--help` appears here.

set -l feeddiff_commands init clone add remove poll sync log show history cat status enable trust import export-opml export-sqlite export-warc gc migrate site fixtures normalize items diff article search backfill

# The archive: -C's value, else the current directory; the top of its git repository.
function __feeddiff_archive
    set -l tokens (commandline -opc)
    set -l dir .
    for i in (seq (count $tokens))
        if test "$tokens[$i]" = -C; and test $i -lt (count $tokens)
            set dir $tokens[(math $i + 1)]
        else if string match -q -- '-C?*' $tokens[$i]
            set dir (string sub -s 3 -- $tokens[$i])
        end
    end
    git -C (string replace -r '^~' $HOME -- $dir) rev-parse --show-toplevel 2>/dev/null
end

function __feeddiff_sources
    set -l top (__feeddiff_archive); or return
    string replace -rf '^\s*\[\s*sources\."?([A-Za-z0-9._-]+)"?\s*\].*' '$1' <$top/feeddiff.toml 2>/dev/null
end

function __feeddiff_commits
    set -l top (__feeddiff_archive); or return
    echo HEAD
    git -C $top log -n 100 --format='%h%x09%s' 2>/dev/null
end

complete -c feeddiff -f
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -s h -l help -d 'Print help and exit'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -l version -d 'Print the version, the commit and the library versions'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -s C -r -a '(__fish_complete_directories)' -d 'Run in this archive'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -l color -x -a 'auto always never' -d 'Colour output'

complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a init -d 'Create an archive'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a clone -d 'Clone an archive to poll it from here too'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a add -d 'Add a source'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a remove -d 'Stop polling a source'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a poll -d 'Fetch what is due, commit what changed'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a sync -d 'Publish local commits to the shared remote'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a log -d 'List the recorded changes'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a show -d 'Show one recorded change'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a history -d 'Follow one item across the archive'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a cat -d 'Print a raw body at a commit'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a status -d 'The state of each source'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a enable -d 'Poll a source again after 410 Gone'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a trust -d 'List the hooks and consent to run them here'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a import -d 'Add the feeds of an OPML list'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a export-opml -d 'Write the sources as OPML'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a export-sqlite -d 'Write the item history to SQLite'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a export-warc -d 'Write the recorded versions as a WARC file'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a gc -d 'Pack the archive'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a migrate -d 'Move raw/ to the flat or fan-out layout'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a site -d 'Write a static HTML site'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a fixtures -d 'Refresh or check recorded feeds'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a normalize -d 'Print a feed in canonical form'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a items -d 'List a feed\'s items'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a article -d 'Print the readable article of an HTML page'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a search -d 'Search every version of every item'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a backfill -d 'Record the feed\'s own archive'
complete -c feeddiff -n "not __fish_seen_subcommand_from $feeddiff_commands" -a diff -d 'Compare two versions'

complete -c feeddiff -n "__fish_seen_subcommand_from $feeddiff_commands" -s h -l help -d 'Print help and exit'

# Arguments.
complete -c feeddiff -n '__fish_seen_subcommand_from init site clone' -a '(__fish_complete_directories)'
complete -c feeddiff -n '__fish_seen_subcommand_from sync' -a '(git -C (__feeddiff_archive) remote 2>/dev/null)'
complete -c feeddiff -n '__fish_seen_subcommand_from remove poll log enable status export-sqlite export-warc history' -a '(__feeddiff_sources)'
complete -c feeddiff -n '__fish_seen_subcommand_from show cat normalize items diff' -a '(__feeddiff_commits) (__feeddiff_sources)'
complete -c feeddiff -n '__fish_seen_subcommand_from normalize items diff import article' -F
complete -c feeddiff -n '__fish_seen_subcommand_from fixtures' -a 'check update (__fish_complete_directories)'

# Options.
complete -c feeddiff -n '__fish_seen_subcommand_from add import' -l every -x -d 'Poll interval'
complete -c feeddiff -n '__fish_seen_subcommand_from add' -l articles -d 'Capture the page each item links to'
complete -c feeddiff -n '__fish_seen_subcommand_from add' -l backfill -d 'Poll it, then record the feed\'s own archive'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -x -a '(__feeddiff_sources)'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -l max-pages -x -d 'Archive pages fetched at most'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -l delay -x -d 'Pause between requests to one host'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -l timeout -x -d 'Time limit of one page'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -l max-body -x -d 'Largest page accepted'
complete -c feeddiff -n '__fish_seen_subcommand_from backfill' -l wait -d 'Wait for a running poll'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l force -d 'Fetch even sources not due'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l sync -d 'Then publish as feeddiff sync does'
complete -c feeddiff -n '__fish_seen_subcommand_from cat' -l feed -d 'The last feed version, even when the last response was no feed'
complete -c feeddiff -n '__fish_seen_subcommand_from cat show items history' -l at -x -d 'The version in force at TIME (ISO 8601, 2 weeks ago)'
complete -c feeddiff -n '__fish_seen_subcommand_from diff' -l from -x -d 'With NAME: its version in force at TIME as A'
complete -c feeddiff -n '__fish_seen_subcommand_from diff' -l to -x -d 'With --from: the version in force at TIME as B'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l remote -x -d 'The git remote --sync publishes to'
complete -c feeddiff -n '__fish_seen_subcommand_from sync' -l tries -x -d 'Pushes to attempt'
complete -c feeddiff -n '__fish_seen_subcommand_from sync' -l wait -d 'Wait for a running poll'
complete -c feeddiff -n '__fish_seen_subcommand_from sync' -s q -l quiet -d 'Print nothing unless it fails'
complete -c feeddiff -n '__fish_seen_subcommand_from poll enable gc migrate' -l wait -d 'Wait for a running poll'
complete -c feeddiff -n '__fish_seen_subcommand_from trust' -a 'exec webhook'
complete -c feeddiff -n '__fish_seen_subcommand_from trust' -l all -d 'Trust every hook as it is now'
complete -c feeddiff -n '__fish_seen_subcommand_from migrate' -l layout -x -a 'fanout flat' -d 'The layout of raw/'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -s q -l quiet -d 'Print failures only'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -s v -l verbose -d 'Print every source'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l no-progress -d 'No progress line'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l digest -d 'Print a summary of what changed'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -s j -l jobs -x -d 'Transfers at once'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l per-host -x -d 'Connections to one host at once'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l timeout -x -d 'Time limit of one transfer'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l connect-timeout -x -d 'Time limit of connecting'
complete -c feeddiff -n '__fish_seen_subcommand_from poll' -l max-body -x -d 'Largest body accepted'
complete -c feeddiff -n '__fish_seen_subcommand_from poll status' -l shard -x -d 'Shard K of N (K/N)'
complete -c feeddiff -n '__fish_seen_subcommand_from log' -s n -x -d 'At most N changes'
complete -c feeddiff -n '__fish_seen_subcommand_from log' -l format -x -a 'text json'
complete -c feeddiff -n '__fish_seen_subcommand_from log' -l items -d 'One line per item change'
complete -c feeddiff -n '__fish_seen_subcommand_from log' -l cosmetic -d 'List cosmetic-only changes too'
complete -c feeddiff -n '__fish_seen_subcommand_from show diff' -l only -x -a 'added removed changed moved reappeared duplicate' -d 'List only these item kinds'
complete -c feeddiff -n '__fish_seen_subcommand_from show' -l format -x -a 'text markdown json html'
complete -c feeddiff -n '__fish_seen_subcommand_from history' -l format -x -a 'text markdown json html'
complete -c feeddiff -n '__fish_seen_subcommand_from diff' -l format -x -a 'text markdown json html'
complete -c feeddiff -n '__fish_seen_subcommand_from diff' -l all -d 'Show every source that changed between the two'
complete -c feeddiff -n '__fish_seen_subcommand_from show diff' -l normalized -d 'Diff the canonical documents'
complete -c feeddiff -n '__fish_seen_subcommand_from show diff site' -l max-lines -x -d 'Diff lines shown at most'
complete -c feeddiff -n '__fish_seen_subcommand_from fixtures' -l max-lines -x -d 'Diff lines shown per fixture'
complete -c feeddiff -n '__fish_seen_subcommand_from show diff site' -l max-line-chars -x -d 'Characters of a diff line shown at most'
complete -c feeddiff -n '__fish_seen_subcommand_from status items article' -l json -d 'JSON output'
complete -c feeddiff -n '__fish_seen_subcommand_from import' -s n -l dry-run -d 'Change nothing'
complete -c feeddiff -n '__fish_seen_subcommand_from export-opml' -s o -l output -r -F -d 'Write to this file'
complete -c feeddiff -n '__fish_seen_subcommand_from export-sqlite' -l db -r -F -d 'The database file'
complete -c feeddiff -n '__fish_seen_subcommand_from export-warc' -s o -l output -r -F -d 'The WARC file'
complete -c feeddiff -n '__fish_seen_subcommand_from export-warc' -l cdxj -r -F -d 'The CDXJ index'
complete -c feeddiff -n '__fish_seen_subcommand_from export-warc' -l since -r -d 'Only versions after this commit'
complete -c feeddiff -n '__fish_seen_subcommand_from site' -l base-url -x -d 'Absolute URL of the site'
complete -c feeddiff -n '__fish_seen_subcommand_from site' -l feed-entries -x -d 'Entries of the Atom feed'
complete -c feeddiff -n '__fish_seen_subcommand_from fixtures' -l offline -d 'Fetch nothing'
complete -c feeddiff -n '__fish_seen_subcommand_from search' -l source -x -a '(__feeddiff_sources)' -d 'Only this source'
complete -c feeddiff -n '__fish_seen_subcommand_from search' -l since -x -d 'Only text still there at or after TIME'
complete -c feeddiff -n '__fish_seen_subcommand_from search' -l until -x -d 'Only text that had appeared by TIME'
complete -c feeddiff -n '__fish_seen_subcommand_from search' -l limit -x -d 'Hits at most'
complete -c feeddiff -n '__fish_seen_subcommand_from search' -l format -x -a 'text json'
