fn main() {
    println!("litmus");
}
