//! A terminal for interactive commands: a tmux session of its own (own socket), driven by
//! keys and read back from its screen.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a screen may take to show what a test waits for (no measure of speed).
const PATIENCE: Duration = Duration::from_secs(60);

pub struct Terminal {
    sock: String,
    session: String,
}

impl Terminal {
    /// Runs the shell command `cmd` in a new 160×50 terminal whose socket lives in `dir`;
    /// `None` (said loudly) when tmux is missing.
    pub fn start(dir: &Path, name: &str, cmd: &str) -> Option<Terminal> {
        if !super::skip::program(name, "tmux", &["-V"], None) {
            return None;
        }
        let t = Terminal {
            sock: dir.join("tmux.sock").to_str().unwrap().to_string(),
            session: format!("litmus-{name}-{}", std::process::id()),
        };
        let o = t.tmux(&[
            "new-session",
            "-d",
            "-s",
            &t.session,
            "-x",
            "160",
            "-y",
            "50",
            cmd,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        Some(t)
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-S", &self.sock])
            .args(args)
            .output()
            .unwrap()
    }

    /// What the terminal shows now.
    pub fn screen(&self) -> String {
        let o = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    /// Waits until `want` is on the screen `count` times, and returns the screen.
    pub fn wait_for(&self, want: &str, count: usize) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if s.matches(want).count() >= count {
                return s;
            }
            if start.elapsed() > PATIENCE {
                panic!("no `{want}` on the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `keys` (tmux's names: `Enter`, `Down`, ...).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.session];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}
