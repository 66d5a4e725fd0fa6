// probe component
