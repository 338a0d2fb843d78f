#!/bin/bash
# parse-profile.sh RESULTS.TXT: the profiled passes of a guest's results
# stream; parse-results.sh --profile, the one reader of results streams.
exec "$(dirname "$0")/parse-results.sh" --profile "$@"
