#!/bin/sh
# The `rigdesk` CLI shim the packaged app installs on PATH: it runs the CLI bundled in the app on
# the app's own runtime (ELECTRON_RUN_AS_NODE), so no separate Node is needed. Remove it with rm.
# @APP_EXEC@ and @CLI_JS@ are filled in when the shim is installed.
ELECTRON_RUN_AS_NODE=1 exec "@APP_EXEC@" "@CLI_JS@" "$@"
