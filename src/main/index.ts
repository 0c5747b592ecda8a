// The Electron shell (thin). The desktop issue fills this in: window, tray, notifications and deep
// links around the same engine the CLI runs. Until then it only proves the build wiring.
export {};
