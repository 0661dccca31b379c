public enum FootprintServerPlaceholder {}
