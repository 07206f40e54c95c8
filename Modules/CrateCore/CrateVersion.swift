public enum CrateVersion {
    public static let string = "0.1.0"
}
