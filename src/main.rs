fn main() -> std::process::ExitCode {
    cubesearch_cli::main()
}
