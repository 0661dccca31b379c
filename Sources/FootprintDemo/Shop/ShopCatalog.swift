/// One product of the sample shop.
public struct Product: Sendable, Hashable {
    /// The business id, sent as `$item_id` (`sku-007`).
    public var id: String
    /// The name shown in its cell.
    public var name: String
    /// The price in euros.
    public var price: Double
    /// The category it is listed under.
    public var category: String
    /// How strongly it draws taps when on screen, 1...10: products differ in exposure→click rate.
    public var appeal: Int
}

/// The sample shop's catalogue: a fixed list, the same in every run.
public enum ShopCatalog {
    /// The categories, in the order the home page shows them.
    public static let categories = ["Shoes", "Jackets", "Bags", "Watches"]

    /// Every product, in feed order: twelve per category, interleaved.
    public static let products: [Product] = {
        let models = [
            "Classic", "Runner", "Trail", "City", "Weekend", "Studio", "Alpine", "Harbor", "Metro", "Summit",
            "Coastal", "Nomad",
        ]
        var products: [Product] = []
        for (modelIndex, model) in models.enumerated() {
            for (categoryIndex, category) in categories.enumerated() {
                let number = products.count + 1
                let price = Double(29 + (modelIndex * 7 + categoryIndex * 13) % 90) + 0.9
                products.append(
                    Product(
                        id: "sku-" + String(number).leftPadded(to: 3),
                        name: "\(model) \(category.dropLast())",
                        price: price, category: category, appeal: 1 + (number * 37) % 10))
            }
        }
        return products
    }()
}

extension String {
    /// The string with leading zeros up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
