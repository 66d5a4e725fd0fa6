// uci-adapter component
