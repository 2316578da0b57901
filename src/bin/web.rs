//! Entry point of the web app that Trunk builds (feature `web`).

fn main() {
    netpress::web::start();
}
